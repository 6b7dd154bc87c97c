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
