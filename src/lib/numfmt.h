/* numfmt.h - printing doubles: the shortest text that reads back as the same
 * double, a fixed precision, and JSON's spelling of non-finite numbers. */
#ifndef AD_NUMFMT_H
#define AD_NUMFMT_H

#include <stddef.h>

/* shortest round-trip form ("0.1", "2", "1e-05", "inf", "-inf", "nan");
 * prec > 0 uses %.{prec}g instead.  buf needs 32 bytes.  Returns buf. */
char *ad_fmt_number(char *buf, size_t n, double x, int prec);
static inline char *adi_fmt_double(char *buf, size_t n, double x) { return ad_fmt_number(buf, n, x, 0); }
/* the same as a JSON value: non-finite numbers become "inf", "-inf", "nan" */
char *ad_fmt_json_number(char *buf, size_t n, double x, int prec);

/* op's synopsis with A and B replaced: ("A + B", "t1", "t2") -> "t1 + t2" */
void adi_synopsis(char *buf, size_t n, int op, const char *A, const char *B);

#endif

#include <stdio.h>
/* writes s[0..len) as a JSON string literal (quotes included) */
void adi_fput_json_string(FILE *f, const char *s, size_t len);
