/* ssbexp(K), the QPOR paper's Fig. 1 program, as models/proc/ssbexp.proc: K threads
   lock and unlock their own mutex ma[x]; a counter thread writes i = 1..K-1 under mi;
   main reads i under mi and then locks ma[i]. Compile with -DK=... */
#ifndef K
#define K 3
#endif

bit ma[K];
bit mi;
byte i = 0;
byte done = 0;

inline lock(m)   { atomic { m == 0 -> m = 1 } }
inline unlock(m) { m = 0 }

proctype wa(byte x) {
    lock(ma[x]);
    unlock(ma[x]);
    done++
}

proctype counter() {
    byte x = 1;
    do
    :: x < K -> lock(mi); i = x; unlock(mi); x++
    :: else -> break
    od;
    done++
}

init {
    byte x = 0;
    byte idx;
    do
    :: x < K -> run wa(x); x++
    :: else -> break
    od;
    run counter();
    lock(mi);
    idx = i;
    unlock(mi);
    lock(ma[idx]);
    unlock(ma[idx]);
    done == K + 1   /* join all */
}
