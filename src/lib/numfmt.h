/* numfmt.h - the engine's side of number formatting (the public
 * ad_fmt_number and ad_fmt_json_number are in adcalc.h): the shorthand for
 * the shortest form, op synopses, and JSON strings for the tape listing. */
#ifndef AD_NUMFMT_H
#define AD_NUMFMT_H

#include <stddef.h>
#include <stdio.h>
#include "adcalc.h"

static inline char *adi_fmt_double(char *buf, size_t n, double x) { return ad_fmt_number(buf, n, x, 0); }

/* op's synopsis with A and B replaced: ("A + B", "t1", "t2") -> "t1 + t2" */
void adi_synopsis(char *buf, size_t n, int op, const char *A, const char *B);

/* writes s[0..len) as a JSON string literal (quotes included) */
void adi_fput_json_string(FILE *f, const char *s, size_t len);

#endif
