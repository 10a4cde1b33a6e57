/* mpat(K) as models/proc/mpat.proc: writer wa[i] locks ma[i]; reader ra[i] locks mi, then
   ma[i]. K!·2^K Mazurkiewicz traces. Compile with -DK=... */
#ifndef K
#define K 3
#endif

bit ma[K];
bit mi;

inline lock(m)   { atomic { m == 0 -> m = 1 } }
inline unlock(m) { m = 0 }

proctype wa(byte i) {
    lock(ma[i]);
    unlock(ma[i])
}

proctype ra(byte i) {
    lock(mi);
    lock(ma[i]);
    unlock(ma[i]);
    unlock(mi)
}

init {
    byte i = 0;
    do
    :: i < K -> run wa(i); run ra(i); i++
    :: else -> break
    od
}
