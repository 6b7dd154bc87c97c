/* numfmt.c - shortest round-trip formatting of doubles (the shortest %.Ng
 * that strtod reads back to the identical bits), and the op synopses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"
#include "ops.h"

char *ad_fmt_number(char *buf, size_t n, double x, int prec)
{
    if (isnan(x)) { snprintf(buf, n, "nan"); return buf; }
    if (isinf(x)) { snprintf(buf, n, x > 0 ? "inf" : "-inf"); return buf; }
    if (prec > 0) {
        snprintf(buf, n, "%.*g", prec, x);
        return buf;
    }
    /* the fewest significant digits that read back to the same bits... */
    int p = 1;
    for (; p < 17; p++) {
        snprintf(buf, n, "%.*g", p, x);
        if (strtod(buf, NULL) == x) break;
    }
    snprintf(buf, n, "%.*g", p, x);
    /* ...written without an exponent when that is no longer: 100, not 1e+02 */
    const char *e = strchr(buf, 'e');
    if (e) {
        int exp10 = atoi(e + 1);
        if (exp10 >= 0 && exp10 < 17) {
            char fixed[40];
            snprintf(fixed, sizeof fixed, "%.0f", x);
            if (strlen(fixed) <= strlen(buf) && strtod(fixed, NULL) == x && strlen(fixed) < n)
                strcpy(buf, fixed);
        }
    }
    /* -0 stays "-0": it reads back as -0 */
    return buf;
}

char *ad_fmt_json_number(char *buf, size_t n, double x, int prec)
{
    if (!isfinite(x)) {
        snprintf(buf, n, "\"%s\"", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
        return buf;
    }
    return ad_fmt_number(buf, n, x, prec);
}

void ad_synopsis(char *buf, size_t n, int op, const char *A, const char *B)
{
    const char *s = ad_ops[op].synopsis;
    size_t j = 0;
    for (; *s && j + 1 < n; s++) {
        const char *sub = *s == 'A' ? A : *s == 'B' ? B : NULL;
        if (sub) {
            size_t l = strlen(sub);
            if (j + l >= n) l = n - 1 - j;
            memcpy(buf + j, sub, l);
            j += l;
        } else {
            buf[j++] = *s;
        }
    }
    buf[j] = 0;
}

void ad_fput_json_string(FILE *f, const char *s, size_t len)
{
    putc('"', f);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
            else if (c >= 0x80) fputs("\\ufffd", f); /* expressions are ASCII */
            else putc(c, f);
        }
    }
    putc('"', f);
}
