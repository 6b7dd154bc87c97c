// dtoa.cc - the one C++ file: a shim over Google's double-conversion
// library, which finds the shortest digit string that reads back as the
// same double (Grisu3 with an exact fallback).  numfmt.c lays the digits
// out.  Pure function, no state.
#include <double-conversion/double-conversion.h>

extern "C" int adi_shortest_digits(double v, char *digits, int size, int *len, int *point)
{
    bool sign = false;
    int length = 0, pt = 0;
    double_conversion::DoubleToStringConverter::DoubleToAscii(
        v, double_conversion::DoubleToStringConverter::SHORTEST, 0, digits, size, &sign, &length, &pt);
    *len = length;
    *point = pt;
    return sign ? 1 : 0;
}

#ifdef AD_DTOA_STATIC
// With double-conversion linked statically, this is all adcalc needs of the
// C++ runtime: the guards of a function-local static (Itanium C++ ABI
// 3.3.2), which double-to-string.o refers to for EcmaScriptConverter(), a
// function adcalc never calls.  Linking the static libstdc++ for them
// brought its constructors, 250 relocations and a 71 KB emergency pool into
// every run, a twentieth of the start-up time (configure links without it
// only when this file's definitions are all the link needs).
//
// The guard is 64 bits: byte 0 is set once the object is initialised (what
// the compiler's inline check reads), byte 1 while one thread initialises
// it; the others wait.  The state is the guard's own: nothing global.
// Hidden, so that a program embedding libadcalc.a keeps its C++ runtime's
// own guards for everything else.  The 32-bit ARM ABI lays the guard out
// otherwise: there configure's check fails here and the shared library is
// used.
#if defined(__arm__) && !defined(__aarch64__)
#error "the generic Itanium guard layout only"
#endif
#include <sched.h>
#include <stdint.h>

#define AD_GUARD extern "C" __attribute__((visibility("hidden")))

AD_GUARD int __cxa_guard_acquire(uint64_t *g)
{
    unsigned char *b = reinterpret_cast<unsigned char *>(g);
    for (;;) {
        if (__atomic_load_n(&b[0], __ATOMIC_ACQUIRE)) return 0;
        unsigned char idle = 0;
        if (__atomic_compare_exchange_n(&b[1], &idle, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            if (!__atomic_load_n(&b[0], __ATOMIC_ACQUIRE)) return 1;   // ours to initialise
            __atomic_store_n(&b[1], 0, __ATOMIC_RELEASE);              // done meanwhile
            return 0;
        }
        sched_yield();
    }
}

AD_GUARD void __cxa_guard_release(uint64_t *g)
{
    unsigned char *b = reinterpret_cast<unsigned char *>(g);
    __atomic_store_n(&b[0], 1, __ATOMIC_RELEASE);
    __atomic_store_n(&b[1], 0, __ATOMIC_RELEASE);
}

AD_GUARD void __cxa_guard_abort(uint64_t *g)
{
    __atomic_store_n(reinterpret_cast<unsigned char *>(g) + 1, 0, __ATOMIC_RELEASE);
}
#endif
