/* N dining philosophers as models/proc/philosophers.proc: each locks its left fork, then
   its right one, eats, unlocks both, forever. Deadlocks (invalid end state). -DN=... */
#ifndef N
#define N 5
#endif

bit fork[N];

inline lock(m)   { atomic { m == 0 -> m = 1 } }
inline unlock(m) { m = 0 }

proctype phil(byte i) {
end: do
    :: lock(fork[i]);
       lock(fork[(i + 1) % N]);
       unlock(fork[(i + 1) % N]);
       unlock(fork[i])
    od
}

init {
    byte i = 0;
    atomic {
        do
        :: i < N -> run phil(i); i++
        :: else -> break
        od
    }
}
