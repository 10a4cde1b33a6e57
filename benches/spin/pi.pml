/* pi(T) as models/proc/pi.proc: T threads compute a share of the Leibniz series locally
   (in one d_step, so local work makes no interleavings, as qpor and Dpu fold it) and add it
   to a shared sum under one mutex; main joins them. T! traces. Compile with -DT=... */
#ifndef T
#define T 3
#endif
#define TERMS 5000
#define SCALE 1000000
#define SHARE (TERMS / T)

bit m;
int sum = 0;
byte done = 0;

inline lock(m)   { atomic { m == 0 -> m = 1 } }
inline unlock(m) { m = 0 }

proctype thread_sum(byte r) {
    int my_sum = 0;
    int factor = 1;
    int k;
    d_step {
        if
        :: (r * SHARE) % 2 == 1 -> factor = -1
        :: else -> skip
        fi;
        k = r * SHARE;
        do
        :: k < (r + 1) * SHARE -> my_sum = my_sum + factor * (SCALE / (2 * k + 1)); factor = -factor; k++
        :: else -> break
        od
    };
    lock(m);
    sum = sum + my_sum;
    unlock(m);
    done++
}

init {
    byte r = 0;
    do
    :: r < T -> run thread_sum(r); r++
    :: else -> break
    od;
    done == T
}
