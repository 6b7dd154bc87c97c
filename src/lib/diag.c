/* diag.c - error classes: their tags, and the diagnostic record. */
#include <stdarg.h>
#include <stdio.h>
#include "adcalc.h"

const char *ad_err_tag(ad_errclass cls)
{
    switch (cls) {
    case AD_E_NONE: return "ok";
    case AD_E_DOMAIN: return "ad/domain";
    case AD_E_USAGE: return "ad/usage";
    case AD_E_SYNTAX: return "ad/syntax";
    case AD_E_NAME: return "ad/name";
    case AD_E_NONDIFF: return "ad/nondiff-strict";
    case AD_E_IO: return "ad/io";
    case AD_E_PATH: return "ad/path";
    }
    return "ad/io";
}

ad_errclass ad_diag_set(ad_diag *d, ad_errclass cls, int line, int col, const char *fmt, ...)
{
    if (d) {
        d->cls = cls;
        d->line = line;
        d->col = col;
        d->src = 0;
        d->hint = AD_HINT_NONE;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->msg, sizeof d->msg, fmt, ap);
        va_end(ap);
    }
    return cls;
}
