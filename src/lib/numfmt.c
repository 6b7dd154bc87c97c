/* numfmt.c - shortest round-trip formatting of doubles (the shortest %.Ng
 * that strtod reads back to the identical bits), and the op synopses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"
#include "ops.h"

int adi_shortest_digits(double v, char *digits, int size, int *len, int *point);   /* dtoa.cc */

char *ad_fmt_number(char *buf, size_t n, double x, int prec)
{
    if (isnan(x)) { snprintf(buf, n, "nan"); return buf; }
    if (isinf(x)) { snprintf(buf, n, x > 0 ? "inf" : "-inf"); return buf; }
    if (prec > 0) {
        snprintf(buf, n, "%.*g", prec, x);
        return buf;
    }
    /* the shortest digits that read back to the same bits (dtoa.cc), laid
     * out as %g would with that many digits, except that a whole number
     * below 1e21 is written out in full, as JavaScript and jq write it:
     * 5000000, not 5e+06 */
    char dig[24];
    int len, point;
    int neg = adi_shortest_digits(x, dig, sizeof dig, &len, &point);
    int exp10 = point - 1;
    char *o = buf;
    size_t room = n;
    if (neg) *o++ = '-', room--;
    if (x == 0) {
        snprintf(o, room, "0");
        return buf;
    }
    int use_exp = exp10 < -4 || exp10 >= 21;
    if (use_exp) {
        size_t k = 0;
        o[k++] = dig[0];
        if (len > 1) {
            o[k++] = '.';
            for (int i = 1; i < len; i++) o[k++] = dig[i];
        }
        snprintf(o + k, room - k, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    } else if (exp10 >= 0) {
        size_t k = 0;
        for (int i = 0; i <= exp10 || i < len; i++) {
            if (i == exp10 + 1) o[k++] = '.';
            o[k++] = i < len ? dig[i] : '0';
        }
        o[k] = 0;
    } else {
        size_t k = 0;
        o[k++] = '0';
        o[k++] = '.';
        for (int i = 0; i < -exp10 - 1; i++) o[k++] = '0';
        for (int i = 0; i < len; i++) o[k++] = dig[i];
        o[k] = 0;
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

void adi_synopsis(char *buf, size_t n, int op, const char *A, const char *B)
{
    const char *s = adi_ops[op].synopsis;
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

/* the length of the well-formed UTF-8 sequence at s[0..n) (RFC 3629: no
 * overlong forms, no surrogates, at most U+10FFFF), or 0 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] > 0xf4 || len == 0 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) || (s[0] == 0xf0 && s[1] < 0x90) ||
        (s[0] == 0xf4 && s[1] >= 0x90))
        return 0;
    return len;
}

size_t ad_json_escape(char *dst, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        if (c >= 0x80) {
            /* text from a file of points: well-formed UTF-8 as it is,
             * any other byte as U+FFFD */
            size_t u = utf8_len((const unsigned char *)s + i, len - i);
            if (u) {
                memcpy(dst + k, s + i, u);
                k += u;
                i += u - 1;
                continue;
            }
        }
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\t': esc = "\\t"; break;
        case '\r': esc = "\\r"; break;
        default:
            if (c >= 0x80) esc = "\\ufffd";
        }
        if (esc) {
            size_t n = strlen(esc);
            memcpy(dst + k, esc, n);
            k += n;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(dst + k, "\\u00", 4);
            dst[k + 4] = hex[c >> 4];
            dst[k + 5] = hex[c & 15];
            k += 6;
        } else {
            dst[k++] = (char)c;
        }
    }
    return k;
}

void adi_fput_json_string(FILE *f, const char *s, size_t len)
{
    /* in pieces, through a buffer on the stack: 40 bytes escape to at most 240 */
    char buf[240];
    putc('"', f);
    for (size_t i = 0; i < len; i += 40)
        fwrite(buf, 1, ad_json_escape(buf, s + i, len - i < 40 ? len - i : 40), f);
    putc('"', f);
}
