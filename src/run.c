/* run.c - one expression from options to numbers: parse it onto a tape,
 * bind the -at values to its inputs, and run forward mode (dual numbers)
 * and/or reverse mode (the tape swept backwards) as requested. */
#include <string.h>
#include "run.h"
#include "alloc.h"

void ad_result_init(ad_result *r) { memset(r, 0, sizeof *r); }

void ad_result_free(ad_result *r)
{
    free(r->grad);
    free(r->gnames);
    free(r->diff);
    ad_result_init(r);
}

/* index of name in -at, or -1 */
static long at_index(const ad_options *o, const char *name, size_t len)
{
    for (size_t j = 0; j < o->nat; j++)
        if (strlen(o->at[j].name) == len && memcmp(o->at[j].name, name, len) == 0) return (long)j;
    return -1;
}

ad_errclass ad_run(const ad_options *o, const ad_source *s, ad_tape *t, ad_work *w,
                   ad_result *r, ad_diag *d)
{
    ad_errclass e = ad_parse(t, s->src, s->len, d);
    if (e) return e;
    size_t ni = ad_tape_ninputs(t), nat = o->nat;
    double *x = ad_malloc(ni * sizeof *x);
    long *at_of = ad_malloc(ni * sizeof *at_of);      /* tape input -> -at index */
    long *in_of = ad_malloc(nat * sizeof *in_of);     /* -at index -> tape input or -1 */
    double *g = ad_malloc(ni * sizeof *g), *seeds = NULL;
    r->diff = ad_malloc(ni);
    if (!x || !at_of || !in_of || !g || !r->diff) { e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); goto out; }
    for (size_t j = 0; j < nat; j++) in_of[j] = -1;
    for (size_t i = 0; i < ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(t, i, &len);
        long j = at_index(o, name, len);
        if (j < 0) {
            int line, col;
            ad_tape_pos(t, i, &line, &col);
            if (len <= 60)
                e = ad_diag_set(d, AD_E_NAME, line, col,
                                "variable '%.*s' has no value (give it with -at %.*s=VALUE)",
                                (int)len, name, (int)len, name);
            else
                e = ad_diag_set(d, AD_E_NAME, line, col,
                                "variable '%.60s...' (%zu characters) has no value (give it with -at)",
                                name, len);
            goto out;
        }
        at_of[i] = j;
        in_of[j] = (long)i;
        x[i] = o->at[j].value;
    }

    /* the directional derivative first: forward mode unless --mode reverse */
    if (o->nseed) {
        memset(r->diff, 0, ni);
        seeds = ad_malloc((ni ? ni : 1) * sizeof *seeds);
        if (!seeds) { e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); goto out; }
        for (size_t i = 0; i < ni; i++) seeds[i] = 0;
        for (size_t k = 0; k < o->nseed; k++) {
            long j = at_index(o, o->seed[k].name, strlen(o->seed[k].name));
            if (j >= 0 && in_of[j] >= 0) {
                r->diff[in_of[j]] = 1;
                seeds[in_of[j]] = o->seed[k].value;
            }
        }
        if (o->mode == AD_MODE_REVERSE) {
            if ((e = ad_eval(t, w, x, d)) || (e = ad_reverse(t, w, r->diff, o->policy, g, d))) goto out;
            double sum = 0;
            for (size_t i = 0; i < ni; i++)
                if (r->diff[i]) sum += g[i] * seeds[i];
            r->jvp = sum;
            r->has_adjoints = 1;
        } else {
            if ((e = ad_forward(t, w, x, r->diff, seeds, 1, o->policy, &r->jvp, d))) goto out;
            r->has_adjoints = 0;
        }
        r->has_jvp = 1;
        r->value = ad_value(t, w);
    }

    if (o->grad) {
        /* derivative order: --wrt order, else -at order */
        size_t ng = o->nwrt ? o->nwrt : nat;
        r->grad = ad_malloc((ng ? ng : 1) * sizeof *r->grad);
        r->gnames = ad_malloc((ng ? ng : 1) * sizeof *r->gnames);
        if (!r->grad || !r->gnames) { e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); goto out; }
        r->ngrad = ng;
        memset(r->diff, 0, ni);
        long *gin = ad_malloc((ng ? ng : 1) * sizeof *gin);   /* tape input of each column */
        if (!gin) { e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); goto out; }
        for (size_t c = 0; c < ng; c++) {
            const char *name = o->nwrt ? o->wrt[c] : o->at[c].name;
            r->gnames[c] = name;
            long j = at_index(o, name, strlen(name));
            gin[c] = j >= 0 ? in_of[j] : -1;
            if (gin[c] >= 0) r->diff[gin[c]] = 1;
        }
        if (o->mode == AD_MODE_FORWARD) {
            /* one sweep of width k = the differentiated inputs that occur */
            size_t k = 0;
            for (size_t c = 0; c < ng; c++) if (gin[c] >= 0) k++;
            double *sd = ad_malloc((ni * k > 0 ? ni * k : 1) * sizeof *sd);
            double *out = ad_malloc((k ? k : 1) * sizeof *out);
            if (!sd || !out) {
                free(sd); free(out); free(gin);
                e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
                goto out;
            }
            memset(sd, 0, ni * k * sizeof *sd);
            size_t col = 0;
            for (size_t c = 0; c < ng; c++)
                if (gin[c] >= 0) sd[(size_t)gin[c] * k + col++] = 1;
            e = ad_forward(t, w, x, r->diff, sd, k, o->policy, out, d);
            col = 0;
            for (size_t c = 0; c < ng; c++) r->grad[c] = gin[c] >= 0 ? out[col++] : 0;
            free(sd);
            free(out);
            r->has_adjoints = 0;
        } else {
            e = ad_eval(t, w, x, d);
            if (!e) e = ad_reverse(t, w, r->diff, o->policy, g, d);
            if (!e)
                for (size_t c = 0; c < ng; c++) r->grad[c] = gin[c] >= 0 ? g[gin[c]] : 0;
            r->has_adjoints = 1;
        }
        free(gin);
        if (e) goto out;
        r->has_grad = 1;
        r->value = ad_value(t, w);
    }

    if (!o->nseed && !o->grad) {
        memset(r->diff, 0, ni);
        if ((e = ad_eval(t, w, x, d))) goto out;
        r->value = ad_value(t, w);
    }
out:
    free(x);
    free(at_of);
    free(in_of);
    free(g);
    free(seeds);
    return e;
}
