/* test_deriv.c - the issue-3 engines of libadcalc.a (src/lib/adcalc.h) against
 * the reference corpus, closed forms and each other: second-order adjoints
 * (ad_hessian), several outputs on one tape (ad_parse_many, ad_forward,
 * ad_reverse_outputs) and Taylor arithmetic (ad_taylor).
 *
 * Usage: test_deriv [CORPUS_DIR]   (default $top_srcdir/tests/corpus)
 *
 * 1. Hessians, every hessian.tsv case: ad_hessian with identity seeds
 *    (width n) against the reference Hessian, |got - ref| <= 1e-8 |ref|
 *    (|got| <= 1e-12 where ref is exactly 0); the value and gradient it
 *    returns against the reference (README tolerance 1e-9); its gradient
 *    against ad_eval + ad_reverse (expected bit for bit: the adjoint part
 *    of forward-over-reverse is the reverse sweep; anything beyond 4 ulps
 *    fails); the symmetry of the computed H (the worst
 *    |H_ij - H_ji| / max(|H_ij|, |H_ji|) is reported, and fails above
 *    1e-12: the two entries come from different tangent directions, so
 *    they agree to rounding, not to the bit);
 *    Hessian-vector products (width-1 seeds, three random directions v per
 *    case) against H v summed by the test from the full H above, to 1e-12
 *    relative to max(|Hv_i|, sum_j |H_ij v_j|) (the sum of magnitudes: the
 *    two computations add the same terms in other orders, so when they
 *    cancel only the scale of the terms is meaningful).
 * 2. Jacobians, from groups of consecutive grad.tsv rows (2 to 8 rows,
 *    some single) recorded as the outputs of one tape with ad_parse_many:
 *    a. shared variables: every name takes the value of its first row's
 *       -at point (the references no longer apply).  Each row of the
 *       Jacobian from m reverse sweeps (ad_reverse_outputs with unit
 *       weights) against the gradient of that expression recorded and
 *       swept alone at the same point; the forward Jacobian (one
 *       ad_forward sweep of width n, identity seeds) against the reverse
 *       one; the vector-Jacobian product for random weights (one
 *       ad_reverse_outputs sweep) against w^T J summed by the test; the
 *       Jacobian-vector product for a random direction (ad_forward, width
 *       1) against J v.  All to 1e-13 relative to max(|a|, |b|, S) where,
 *       as in test_corpus.c, S is the sum over the occurrences of the
 *       variable in the expression of |d f / d occurrence| (measured by
 *       re-recording the expression with every occurrence renamed to a
 *       fresh input): the two sides multiply the same partials but add the
 *       occurrence terms in different orders, so under cancellation they
 *       legitimately differ by ulps of the terms, not of the sum.  For the
 *       products the scale is sum_r |w_r| max(|J_rj|, S_rj) (resp. over
 *       columns).  Entries of variables that an expression does not use
 *       must be exactly 0 in both modes; values must be bit-identical to
 *       the single-expression ones.  When the shared point takes a row out
 *       of its domain, the joint evaluation must fail with the same class
 *       and name that row (ad_diag.src).
 *    b. renamed variables: every row's variables get a suffix _q<row>, so
 *       each row keeps its own point: both Jacobians must then match the
 *       reference gradients (1e-9) in the row's own block and be exactly 0
 *       elsewhere.
 *    Plus the failing-source index of ad_parse_many and ad_diag.src of
 *    evaluation and derivative errors in a set of sources.
 * 3. Taylor coefficients (ad_taylor, coef[k] = f^(k)/k!):
 *    a. closed forms computed by the test in long double: exp, sin, cos,
 *       1/(1-x), log, sqrt, atan (from Im log(1 + i x)), x^p (binomial
 *       series; with integer p the coefficients past p must be 0),
 *       exp(sin(x)) (from the ODE y' = cos(x) y, and at 0 against the
 *       exact integers of OEIS A002017), exp(x) sin(x) (= Im e^((1+i)x)),
 *       orders up to 16 at relative 1e-12, and once up to order 40 (1e-10).
 *       For atan, exp(sin(x)) and exp(x) sin(x), whose coefficients can
 *       cancel, "relative" is relative to max(|ref|, M_k), M_k the same
 *       series with magnitudes (its majorant); elsewhere it is plain.
 *    b. directional (two variables along a seed direction) against
 *       hand-derived closed forms: exp(x*y), sin(x + 2*y), atan2(y, x),
 *       x^3*y^2 (order 12); their order-1 and order-2 coefficients also
 *       against ad_forward (width 1) and v^T H v / 2 from ad_hessian.
 *    c. the corpus: along the jvp.tsv seed, coef[1] against the reference
 *       jvp (1e-9); along a random direction on hessian.tsv, coef[1] and
 *       2 coef[2] against g.v and v^T H v of the references (1e-9 and
 *       1e-8, relative to the sums of magnitudes); on grad.tsv along all
 *       ones, coef[1] against the reference sum of the gradient.
 *    d. coef[0] equals ad_eval's value bit for bit, in every run above.
 *    e. singular and kinked points under both policies: a higher
 *       derivative that is infinite is AD_E_DOMAIN under strict (x^1.5 at
 *       0, order 2), while finite ones are not (x^1.5 at 0, order 1; x^2.5
 *       at 0, order 2), and the Hessian at the same points.
 *
 * Output: a "FAIL section where: ..." line per failed check, then a
 * summary (checks, failures and the worst error of every kind).  Exit
 * status 0 when everything passed, 1 when a check failed, 99 when the
 * corpus cannot be read. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adcalc.h"

#define REF_TOL 1e-9     /* corpus README: first order */
#define HESS_TOL 1e-8    /* second order against the reference */
#define ZERO_TOL 1e-12   /* where the reference is exactly 0 */
#define SYM_TOL 1e-12    /* |H_ij - H_ji| / max */
#define HVP_TOL 1e-12
#define FR_TOL 1e-13     /* forward vs reverse, joint vs single */
#define TAY_TOL 1e-12    /* Taylor, order <= 16 */
#define TAY40_TOL 1e-10  /* Taylor, order 40 */
#define MAXV 64

static ad_tape *tape, *tape2, *split_tape;
static ad_work *work, *work2;
static long total_fail;

/* ---- statistics and reporting ---- */

typedef struct {
    const char *name;
    long checks, fails;
    double worst;
    char worst_at[160];
    long bitwise, bitwise_of;  /* comparisons that were expected bit for bit */
} stat;

static stat st_hess_ref = {"hessian vs reference", 0, 0, 0, "", 0, 0};
static stat st_hess_val = {"hessian: value, gradient vs reference", 0, 0, 0, "", 0, 0};
static stat st_hess_sym = {"hessian symmetry", 0, 0, 0, "", 0, 0};
static stat st_hess_grad = {"hessian gradient vs ad_reverse", 0, 0, 0, "", 0, 0};
static stat st_hvp = {"hvp vs H*v", 0, 0, 0, "", 0, 0};
static stat st_jac_single = {"jacobian rows vs single gradients", 0, 0, 0, "", 0, 0};
static stat st_jac_fr = {"jacobian forward vs reverse", 0, 0, 0, "", 0, 0};
static stat st_vjp = {"vjp vs w^T J", 0, 0, 0, "", 0, 0};
static stat st_jvp = {"jvp vs J v", 0, 0, 0, "", 0, 0};
static stat st_jac_ref = {"jacobian (renamed) vs reference", 0, 0, 0, "", 0, 0};
static stat st_jac_misc = {"jacobian values, zeros, errors", 0, 0, 0, "", 0, 0};
static stat st_tay = {"taylor closed forms, order <= 16", 0, 0, 0, "", 0, 0};
static stat st_tay40 = {"taylor closed forms, order 40", 0, 0, 0, "", 0, 0};
static stat st_tay_dir = {"taylor directional closed forms", 0, 0, 0, "", 0, 0};
static stat st_tay_x = {"taylor vs forward/hessian engines", 0, 0, 0, "", 0, 0};
static stat st_tay_corpus = {"taylor vs corpus", 0, 0, 0, "", 0, 0};
static stat st_tay_zero = {"taylor coef[0] vs ad_eval", 0, 0, 0, "", 0, 0};
static stat st_edge = {"singular points and kinks", 0, 0, 0, "", 0, 0};

static stat *const all_stats[] = {
    &st_hess_ref, &st_hess_val, &st_hess_sym, &st_hess_grad, &st_hvp,
    &st_jac_single, &st_jac_fr, &st_vjp, &st_jvp, &st_jac_ref, &st_jac_misc,
    &st_tay, &st_tay40, &st_tay_dir, &st_tay_x, &st_tay_corpus, &st_tay_zero, &st_edge,
};

static void failf(stat *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* the failure lines of one Jacobian group are capped (fail_budget >= 0:
 * lines left to print); the rest are counted, never hidden from the totals */
static int fail_budget = -1;
static long suppressed;

static int fail_line_ok(void)
{
    if (fail_budget == 0) {
        suppressed++;
        return 0;
    }
    if (fail_budget > 0) fail_budget--;
    return 1;
}

static void failf(stat *s, const char *fmt, ...)
{
    va_list ap;
    s->fails++;
    total_fail++;
    if (!fail_line_ok()) return;
    printf("FAIL %s: ", s->name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* a boolean check */
static int expect_true(stat *s, int cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int expect_true(stat *s, int cond, const char *fmt, ...)
{
    s->checks++;
    if (cond) return 1;
    s->fails++;
    total_fail++;
    if (!fail_line_ok()) return 0;
    va_list ap;
    printf("FAIL %s: ", s->name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    return 0;
}

/* |got - want| <= tol * scale, scale = max(|want|, extra); where that scale
 * is 0 (want exactly 0 and nothing else to measure by), |got| <= ZERO_TOL.
 * NaN passes only against NaN: a derivative that overflowed (inf - inf)
 * is undefined in every engine alike.  Returns 1 when it passed. */
static int cmp(stat *s, const char *where, double got, double want, double tol, double extra)
{
    s->checks++;
    double scale = fmax(fabs(want), extra), diff = fabs(got - want), rel;
    int ok;
    if (scale == 0) {
        rel = fabs(got);   /* absolute, reported as such */
        ok = fabs(got) <= ZERO_TOL;
    } else {
        rel = diff / scale;
        ok = diff <= tol * scale;
    }
    if (got == want) ok = 1, rel = 0;   /* also equal infinities */
    if (isnan(got) || isnan(want)) ok = isnan(got) && isnan(want), rel = ok ? 0 : INFINITY;
    /* the worst error among the checks that passed (failures are listed) */
    if (ok && rel > s->worst) {
        s->worst = rel;
        snprintf(s->worst_at, sizeof s->worst_at, "%s", where);
    }
    if (!ok) {
        s->fails++;
        total_fail++;
        if (fail_line_ok())
            printf("FAIL %s: %s: got %.17g want %.17g (error %.3g relative to %.3g, tolerance %g)\n",
                   s->name, where, got, want, rel, scale, scale == 0 ? ZERO_TOL : tol);
    }
    return ok;
}

/* a comparison that should be bit for bit; counted, and failing beyond
 * ulps * eps relative */
static void cmp_bits(stat *s, const char *where, double got, double want, double ulps)
{
    s->bitwise_of++;
    if (memcmp(&got, &want, sizeof got) == 0 || (got == 0 && want == 0)) {
        s->bitwise++;
        s->checks++;
        return;
    }
    cmp(s, where, got, want, ulps * DBL_EPSILON, 0);
}

static void print_stats(void)
{
    printf("\nsummary\n");
    for (size_t i = 0; i < sizeof all_stats / sizeof *all_stats; i++) {
        const stat *s = all_stats[i];
        printf("  %-40s %6ld checks, %3ld failed, worst passing error %.3g%s%s%s", s->name, s->checks,
               s->fails, s->worst, s->worst_at[0] ? " (" : "", s->worst_at,
               s->worst_at[0] ? ")" : "");
        if (s->bitwise_of) printf("; bit-identical %ld of %ld", s->bitwise, s->bitwise_of);
        putchar('\n');
    }
}

/* ---- a deterministic random number generator ---- */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static double urand(void)  /* [0, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * 0x1p-53;
}
/* a random direction component or weight: +-[0.1, 1] */
static double rdir(void)
{
    double m = 0.1 + 0.9 * urand();
    return urand() < 0.5 ? -m : m;
}

/* ---- the corpus files ---- */

typedef struct {
    char *f[16];
    int nf;
    long lineno;
} trow;

typedef struct {
    char **lines;
    trow *rows;
    size_t n;
    int col[8];
} table;

static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    for (char *p = line; p;) {
        char *t = strchr(p, '\t');
        if (t) *t++ = 0;
        if (n < max) f[n] = p;
        n++;
        p = t;
    }
    return n;
}

static void table_free(table *t)
{
    for (size_t i = 0; t->lines && t->lines[i]; i++) free(t->lines[i]);
    free(t->lines);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* reads dir/name; cols[] are the needed columns; -1 on error */
static int table_load(const char *dir, const char *name, const char *const *cols, int ncols,
                      table *t)
{
    memset(t, 0, sizeof *t);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        printf("ERROR cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 0, nl = 0, lcap = 64;
    char *line = NULL;
    ssize_t len;
    t->lines = malloc(lcap * sizeof *t->lines);
    t->rows = malloc(lcap * sizeof *t->rows);
    if (!t->lines || !t->rows) { fclose(f); return -1; }
    t->lines[0] = NULL;
    int have_header = 0;
    long lineno = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len > 0 && line[len - 1] == '\n') line[--len] = 0;
        if (!have_header && line[0] == '#') continue;
        if (len == 0) continue;
        if (nl + 2 > lcap) {
            lcap *= 2;
            char **nlines = realloc(t->lines, lcap * sizeof *t->lines);
            if (!nlines) { free(line); fclose(f); return -1; }
            t->lines = nlines;
            trow *nrows = realloc(t->rows, lcap * sizeof *t->rows);
            if (!nrows) { free(line); fclose(f); return -1; }
            t->rows = nrows;
        }
        char *copy = strdup(line);
        if (!copy) { free(line); fclose(f); return -1; }
        t->lines[nl++] = copy;
        t->lines[nl] = NULL;
        if (!have_header) {
            char *hdr[16];
            int nh = split_tabs(copy, hdr, 16);
            if (nh > 16) nh = 16;
            for (int c = 0; c < ncols; c++) {
                t->col[c] = -1;
                for (int h = 0; h < nh; h++)
                    if (strcmp(hdr[h], cols[c]) == 0) t->col[c] = h;
                if (t->col[c] < 0) {
                    printf("ERROR %s: no column '%s'\n", name, cols[c]);
                    free(line);
                    fclose(f);
                    return -1;
                }
            }
            have_header = 1;
            continue;
        }
        trow *r = &t->rows[t->n++];
        r->nf = split_tabs(copy, r->f, 16);
        r->lineno = lineno;
        for (int c = 0; c < ncols; c++)
            if (t->col[c] >= r->nf || t->col[c] >= 16) {
                printf("ERROR %s line %ld: missing column %s\n", name, lineno, cols[c]);
                free(line);
                fclose(f);
                return -1;
            }
    }
    free(line);
    fclose(f);
    if (!have_header) {
        printf("ERROR %s: no header\n", name);
        return -1;
    }
    return 0;
}

static const char *fld(const table *t, size_t r, int c) { return t->rows[r].f[t->col[c]]; }

static int num(const char *s, double *v)
{
    char *end;
    if (!*s) return -1;
    *v = strtod(s, &end);
    return *end ? -1 : 0;
}

/* "x=1.5,y=-2": names (malloc'd copies) and values; count or -1 */
static int parse_at(const char *s, char **names, double *vals, int max)
{
    int n = 0;
    if (!*s) return 0;
    const char *p = s;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (!eq || n >= max) goto bad;
        names[n] = strndup(p, (size_t)(eq - p));
        char tmp[64];
        size_t vl = len - (size_t)(eq - p) - 1;
        if (!names[n] || vl >= sizeof tmp) { n += names[n] != NULL; goto bad; }
        memcpy(tmp, eq + 1, vl);
        tmp[vl] = 0;
        if (num(tmp, &vals[n]) < 0) { n++; goto bad; }
        n++;
        if (!end) break;
        p = end + 1;
    }
    return n;
bad:
    for (int i = 0; i < n; i++) free(names[i]);
    return -1;
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++) free(names[i]);
}

/* space-separated numbers; count or -1 */
static int parse_list(const char *s, double *vals, int max)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        if (n >= max) return -1;
        vals[n++] = strtod(p, &end);
        if (end == p) return -1;
        p = end;
        while (*p == ' ') p++;
    }
    return n;
}

/* ---- binding tape inputs to names ---- */

/* in_of[j] = the input of t named names[j], or -1; every input must be
 * one of the names.  x[i] receives the value of input i.  0 or -1. */
static int bind_names(const ad_tape *t, char *const *names, const double *vals, int n, long *in_of,
                      double *x)
{
    size_t ni = ad_tape_ninputs(t);
    for (int j = 0; j < n; j++) in_of[j] = -1;
    for (size_t i = 0; i < ni; i++) {
        size_t len;
        const char *nm = ad_tape_input_name(t, i, &len);
        int j;
        for (j = 0; j < n; j++)
            if (strlen(names[j]) == len && memcmp(names[j], nm, len) == 0) break;
        if (j == n || in_of[j] >= 0) return -1;
        in_of[j] = (long)i;
        x[i] = vals[j];
    }
    return 0;
}

/* ---- rewriting variable occurrences (as in test_corpus.c) ---- */

/* copies expr to out with each occurrence of one of names[] rewritten:
 * suffix == NULL: to zq<k> (occurrence k, occ[k] = its name index);
 * else: to name + suffix.  Numbers are skipped as the lexer reads them; a
 * name followed by '(' is a function.  Returns the occurrences, or -1. */
static int rewrite(const char *expr, char *const *names, int n, const char *suffix, char *out,
                   size_t cap, int *occ, int maxocc)
{
    size_t o = 0;
    int k = 0;
    const char *p = expr;
#define PUT(c) do { if (o + 1 >= cap) return -1; out[o++] = (c); } while (0)
    while (*p) {
        char c = *p;
        if ((c >= '0' && c <= '9') || c == '.') {
            while ((*p >= '0' && *p <= '9') || *p == '.') PUT(*p++);
            if ((*p == 'e' || *p == 'E') &&
                ((p[1] >= '0' && p[1] <= '9') ||
                 ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9'))) {
                PUT(*p++);
                if (*p == '+' || *p == '-') PUT(*p++);
                while (*p >= '0' && *p <= '9') PUT(*p++);
            }
        } else if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
            const char *b = p;
            while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_' ||
                   (*p >= '0' && *p <= '9'))
                p++;
            size_t len = (size_t)(p - b);
            const char *q = p;
            while (*q == ' ') q++;
            int j = n;
            if (*q != '(')
                for (j = 0; j < n; j++)
                    if (strlen(names[j]) == len && memcmp(names[j], b, len) == 0) break;
            if (j < n) {
                if (suffix) {
                    for (const char *t = b; t < p; t++) PUT(*t);
                    for (const char *t = suffix; *t; t++) PUT(*t);
                } else {
                    if (k >= maxocc) return -1;
                    char nm[32];
                    int l = snprintf(nm, sizeof nm, "zq%d", k);
                    for (int i = 0; i < l; i++) PUT(nm[i]);
                    occ[k] = j;
                }
                k++;
            } else {
                for (const char *t = b; t < p; t++) PUT(*t);
            }
        } else {
            PUT(*p++);
        }
    }
#undef PUT
    out[o] = 0;
    return k;
}

/* S[j] = sum over the occurrences of names[j] in expr of |df/d occurrence|
 * at vals (reverse mode on the split copy); all 0 when not measurable */
static void occurrence_scale(const char *expr, char *const *names, const double *vals, int n,
                             ad_policy pol, double *S)
{
    enum { MAXOCC = 4096 };
    static int occ[MAXOCC];
    static long tape_of[MAXOCC];
    static double x[MAXOCC], g[MAXOCC];
    static unsigned char diff[MAXOCC];
    for (int j = 0; j < n; j++) S[j] = 0;
    size_t cap = strlen(expr) * 4 + 64;
    char *buf = malloc(cap);
    if (!buf) return;
    int k = rewrite(expr, names, n, NULL, buf, cap, occ, MAXOCC);
    ad_diag d;
    if (k <= 0 || ad_parse(split_tape, buf, strlen(buf), &d) != AD_E_NONE ||
        ad_tape_ninputs(split_tape) != (size_t)k) {
        free(buf);
        return;
    }
    free(buf);
    for (size_t i = 0; i < (size_t)k; i++) {
        size_t len;
        const char *nm = ad_tape_input_name(split_tape, i, &len);
        char tmp[32];
        if (len < 3 || len >= sizeof tmp || memcmp(nm, "zq", 2) != 0) return;
        memcpy(tmp, nm + 2, len - 2);
        tmp[len - 2] = 0;
        long o = strtol(tmp, NULL, 10);
        if (o < 0 || o >= k) return;
        tape_of[o] = (long)i;
        x[i] = vals[occ[o]];
        diff[i] = 1;
    }
    if (ad_eval(split_tape, work2, x, &d) != AD_E_NONE ||
        ad_reverse(split_tape, work2, diff, pol, g, &d) != AD_E_NONE)
        return;
    for (int o = 0; o < k; o++) S[occ[o]] += fabs(g[tape_of[o]]);
}

/* ======================================================================
 * 1. Hessians
 * ====================================================================== */

/* also section 3c: Taylor along a random direction against the references */
static void hessian_case(const char *id, const char *expr, const char *at, const char *sval,
                         const char *sgrad, const char *shess)
{
    char *names[MAXV];
    double vals[MAXV], rv, rg[MAXV];
    static double rh[MAXV * MAXV], seeds[MAXV * MAXV], hs[MAXV * MAXV], H[MAXV * MAXV];
    double g[MAXV], gr[MAXV], x[MAXV], g1[MAXV], hv[MAXV], v[MAXV], sv[MAXV];
    long in_of[MAXV];
    unsigned char diff[MAXV];
    char where[160];
    ad_diag d;
    int n = parse_at(at, names, vals, MAXV);
    if (n < 0 || num(sval, &rv) < 0 || parse_list(sgrad, rg, MAXV) != n ||
        parse_list(shess, rh, MAXV * MAXV) != n * n) {
        failf(&st_hess_ref, "%s: malformed row", id);
        if (n > 0) free_names(names, n);
        return;
    }
    memset(&d, 0, sizeof d);
    ad_errclass e = ad_parse(tape, expr, strlen(expr), &d);
    if (e || bind_names(tape, names, vals, n, in_of, x) < 0 || ad_tape_ninputs(tape) != (size_t)n) {
        failf(&st_hess_ref, "%s: cannot record/bind '%s' (%s: %s)", id, expr, ad_err_tag(e), d.msg);
        free_names(names, n);
        return;
    }
    size_t ni = (size_t)n, k = (size_t)n;
    memset(diff, 1, ni);
    memset(seeds, 0, ni * k * sizeof *seeds);
    for (int j = 0; j < n; j++) seeds[(size_t)in_of[j] * k + (size_t)j] = 1;
    e = ad_hessian(tape, work, x, diff, seeds, k, AD_STRICT, g, hs, &d);
    if (e) {
        failf(&st_hess_ref, "%s: ad_hessian failed: %s at %d:%d: %s", id, ad_err_tag(e), d.line,
              d.col, d.msg);
        free_names(names, n);
        return;
    }
    double value = ad_value(tape, work);
    snprintf(where, sizeof where, "%s value", id);
    cmp(&st_hess_val, where, value, rv, REF_TOL, 0);
    for (int a = 0; a < n; a++) {
        snprintf(where, sizeof where, "%s d/d%s", id, names[a]);
        cmp(&st_hess_val, where, g[in_of[a]], rg[a], REF_TOL, 0);
        for (int b = 0; b < n; b++) {
            H[a * n + b] = hs[(size_t)in_of[a] * k + (size_t)b];
            snprintf(where, sizeof where, "%s H[%s,%s]", id, names[a], names[b]);
            cmp(&st_hess_ref, where, H[a * n + b], rh[a * n + b], HESS_TOL, 0);
        }
    }
    /* symmetry */
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            double p = H[a * n + b], q = H[b * n + a], m = fmax(fabs(p), fabs(q));
            snprintf(where, sizeof where, "%s H[%s,%s] vs H[%s,%s]", id, names[a], names[b],
                     names[b], names[a]);
            if (m == 0) { st_hess_sym.checks++; continue; }
            cmp(&st_hess_sym, where, p, q, SYM_TOL, m);
        }
    /* the gradient against plain reverse mode */
    e = ad_eval(tape, work, x, &d);
    if (!e) e = ad_reverse(tape, work, diff, AD_STRICT, gr, &d);
    if (e) {
        failf(&st_hess_grad, "%s: ad_reverse failed: %s", id, d.msg);
    } else {
        for (int a = 0; a < n; a++) {
            snprintf(where, sizeof where, "%s d/d%s", id, names[a]);
            cmp_bits(&st_hess_grad, where, g[in_of[a]], gr[in_of[a]], 4);
        }
    }
    /* Hessian-vector products along random directions */
    for (int rep = 0; rep < 3; rep++) {
        double s1[MAXV];
        for (int a = 0; a < n; a++) v[a] = rdir();
        for (int a = 0; a < n; a++) s1[in_of[a]] = v[a];
        e = ad_hessian(tape, work, x, diff, s1, 1, AD_STRICT, g1, hv, &d);
        if (e) {
            failf(&st_hvp, "%s: ad_hessian width 1 failed: %s", id, d.msg);
            break;
        }
        for (int a = 0; a < n; a++) {
            double want = 0, mag = 0;
            for (int b = 0; b < n; b++) {
                want += H[a * n + b] * v[b];
                mag += fabs(H[a * n + b] * v[b]);
            }
            snprintf(where, sizeof where, "%s direction %d (Hv)[%s]", id, rep, names[a]);
            cmp(&st_hvp, where, hv[in_of[a]], want, HVP_TOL, mag);
            snprintf(where, sizeof where, "%s direction %d gradient d/d%s", id, rep, names[a]);
            cmp_bits(&st_hess_grad, where, g1[in_of[a]], g[in_of[a]], 4);
        }
    }
    /* 3c: Taylor along a random direction */
    {
        double coef[3], gv = 0, gmag = 0, q = 0, qmag = 0;
        for (int a = 0; a < n; a++) v[a] = rdir();
        for (int a = 0; a < n; a++) sv[in_of[a]] = v[a];
        e = ad_taylor(tape, work, x, diff, sv, 2, AD_STRICT, coef, &d);
        if (e) {
            failf(&st_tay_corpus, "%s: ad_taylor failed: %s at %d:%d: %s", id, ad_err_tag(e),
                  d.line, d.col, d.msg);
        } else {
            for (int a = 0; a < n; a++) {
                gv += rg[a] * v[a];
                gmag += fabs(rg[a] * v[a]);
                for (int b = 0; b < n; b++) {
                    q += rh[a * n + b] * v[a] * v[b];
                    qmag += fabs(rh[a * n + b] * v[a] * v[b]);
                }
            }
            snprintf(where, sizeof where, "%s taylor coef[0]", id);
            cmp_bits(&st_tay_zero, where, coef[0], value, 0);
            snprintf(where, sizeof where, "%s taylor coef[1] vs g.v", id);
            cmp(&st_tay_corpus, where, coef[1], gv, REF_TOL, gmag);
            snprintf(where, sizeof where, "%s taylor 2 coef[2] vs v'Hv", id);
            cmp(&st_tay_corpus, where, 2 * coef[2], q, HESS_TOL, qmag);
        }
    }
    free_names(names, n);
}

static int hessian_section(const char *dir)
{
    static const char *const cols[] = {"id", "expr", "at", "value", "grad", "hessian"};
    table t;
    if (table_load(dir, "hessian.tsv", cols, 6, &t) < 0) { table_free(&t); return -1; }
    if (t.n != 300 + 22 + 7 + 8) failf(&st_hess_ref, "hessian.tsv has %zu cases, the README promises 337", t.n);
    for (size_t r = 0; r < t.n; r++)
        hessian_case(fld(&t, r, 0), fld(&t, r, 1), fld(&t, r, 2), fld(&t, r, 3), fld(&t, r, 4),
                     fld(&t, r, 5));
    printf("hessian.tsv: %zu cases\n", t.n);
    table_free(&t);

    /* width 0: the gradient alone */
    {
        const char *src = "x*y + sin(x)";
        double x[2] = {2, 3}, g[2], gr[2], hs[1], noseeds[1] = {0};
        unsigned char diff[2] = {1, 1};
        ad_diag d;
        ad_work *fresh = ad_work_new();
        ad_errclass e = ad_parse(tape, src, strlen(src), &d);
        if (!e && fresh) e = ad_hessian(tape, fresh, x, diff, noseeds, 0, AD_STRICT, g, hs, &d);
        if (expect_true(&st_hess_grad, fresh && !e, "ad_hessian of width 0 failed: %s", d.msg)) {
            ad_eval(tape, work, x, &d);
            ad_reverse(tape, work, diff, AD_STRICT, gr, &d);
            cmp_bits(&st_hess_grad, "width 0 d/dx", g[0], gr[0], 0);
            cmp_bits(&st_hess_grad, "width 0 d/dy", g[1], gr[1], 0);
        }
        ad_work_free(fresh);
    }
    return 0;
}

/* ======================================================================
 * 2. Jacobians
 * ====================================================================== */

static const int group_sizes[] = {2, 3, 5, 1, 4, 8, 2, 6, 3, 7};

typedef struct {
    const char *id, *expr, *at, *sval, *sgrad;
} grow;

/* 2a: the rows of a group as outputs of one tape, variables shared */
static void jacobian_shared(const grow *rows, int m)
{
    char *unames[MAXV];
    double uvals[MAXV];
    int nu = 0;
    char where[200], gid[64];
    snprintf(gid, sizeof gid, "%s..%s", rows[0].id, rows[m - 1].id);
    for (int r = 0; r < m; r++) {
        char *nm[MAXV];
        double vv[MAXV];
        int n = parse_at(rows[r].at, nm, vv, MAXV);
        if (n < 0) { failf(&st_jac_misc, "%s: malformed at", rows[r].id); goto out; }
        for (int j = 0; j < n; j++) {
            int u;
            for (u = 0; u < nu; u++)
                if (strcmp(unames[u], nm[j]) == 0) break;
            if (u == nu && nu < MAXV) {
                unames[nu] = nm[j];
                uvals[nu++] = vv[j];
                nm[j] = NULL;
            }
        }
        for (int j = 0; j < n; j++) free(nm[j]);
    }
    /* every expression alone at the shared point */
    static double gs[16][MAXV], S[16][MAXV], J[16][MAXV], Jf[16 * MAXV];
    double vals[16], x[MAXV], g[MAXV];
    long in_of[MAXV];
    unsigned char diff[MAXV];
    ad_errclass es[16];
    ad_diag ds[16], d;
    int first_bad = -1, deriv_bad = 0;
    for (int r = 0; r < m; r++) {
        memset(&ds[r], 0, sizeof ds[r]);
        es[r] = ad_parse(tape2, rows[r].expr, strlen(rows[r].expr), &ds[r]);
        if (es[r] || bind_names(tape2, unames, uvals, nu, in_of, x) < 0) {
            failf(&st_jac_misc, "%s: cannot record/bind '%s'", rows[r].id, rows[r].expr);
            goto out;
        }
        size_t ni = ad_tape_ninputs(tape2);
        memset(diff, 1, ni);
        es[r] = ad_eval(tape2, work2, x, &ds[r]);
        if (es[r]) {
            if (first_bad < 0) first_bad = r;
            continue;
        }
        vals[r] = ad_value(tape2, work2);
        ad_errclass e = ad_reverse(tape2, work2, diff, AD_STRICT, g, &d);
        if (e) { deriv_bad = 1; continue; }
        for (int u = 0; u < nu; u++) gs[r][u] = in_of[u] >= 0 ? g[in_of[u]] : 0;
        occurrence_scale(rows[r].expr, unames, uvals, nu, AD_STRICT, S[r]);
    }
    /* the joint tape */
    const char *srcs[16];
    size_t lens[16], failed = 99;
    for (int r = 0; r < m; r++) {
        srcs[r] = rows[r].expr;
        lens[r] = strlen(rows[r].expr);
    }
    memset(&d, 0, sizeof d);
    ad_errclass e = ad_parse_many(tape, srcs, lens, (size_t)m, &failed, &d);
    if (!expect_true(&st_jac_misc, e == AD_E_NONE, "%s: ad_parse_many failed at source %zu: %s", gid,
                     failed, d.msg))
        goto out;
    if (!expect_true(&st_jac_misc, ad_tape_noutputs(tape) == (size_t)m &&
                         ad_tape_ninputs(tape) == (size_t)nu,
                     "%s: %zu outputs and %zu inputs, want %d and %d", gid, ad_tape_noutputs(tape),
                     ad_tape_ninputs(tape), m, nu) ||
        bind_names(tape, unames, uvals, nu, in_of, x) < 0)
        goto out;
    size_t ni = (size_t)nu;
    memset(diff, 1, ni);
    e = ad_eval(tape, work, x, &d);
    if (first_bad >= 0) {
        /* the joint evaluation fails like the first failing row, naming it */
        expect_true(&st_jac_misc, e == es[first_bad] && d.src == first_bad,
                    "%s: joint evaluation gave %s at source %d, want %s at source %d (%s)", gid,
                    ad_err_tag(e), d.src, ad_err_tag(es[first_bad]), first_bad, ds[first_bad].msg);
        goto out;
    }
    if (!expect_true(&st_jac_misc, e == AD_E_NONE, "%s: joint evaluation failed: %s", gid, d.msg))
        goto out;
    if (deriv_bad) goto out;   /* a kink at the shared point: nothing to compare */
    for (int r = 0; r < m; r++) {
        snprintf(where, sizeof where, "%s output %d value", gid, r);
        cmp_bits(&st_jac_misc, where, ad_output_value(tape, work, (size_t)r), vals[r], 0);
    }
    /* reverse: one sweep per output */
    double wout[16];
    for (int r = 0; r < m; r++) {
        for (int q = 0; q < m; q++) wout[q] = q == r;
        e = ad_reverse_outputs(tape, work, diff, AD_STRICT, wout, g, &d);
        if (!expect_true(&st_jac_single, e == AD_E_NONE, "%s: reverse sweep %d failed: %s", gid, r,
                         d.msg))
            goto out;
        for (int u = 0; u < nu; u++) {
            J[r][u] = g[in_of[u]];
            snprintf(where, sizeof where, "%s row %d (%s) d/d%s", gid, r, rows[r].id, unames[u]);
            if (gs[r][u] == 0 && S[r][u] == 0)
                expect_true(&st_jac_misc, J[r][u] == 0, "%s: reverse %.17g, want exactly 0", where,
                            J[r][u]);
            st_jac_single.bitwise_of++;
            if (memcmp(&J[r][u], &gs[r][u], sizeof(double)) == 0 || (J[r][u] == 0 && gs[r][u] == 0))
                st_jac_single.bitwise++;
            else if (isfinite(J[r][u]) && isfinite(gs[r][u]))
                printf("NOTE %s: joint %.17g, alone %.17g (not bit-identical)\n", where, J[r][u],
                       gs[r][u]);
            cmp(&st_jac_single, where, J[r][u], gs[r][u], FR_TOL, S[r][u]);
        }
    }
    /* forward: one sweep of width n */
    {
        static double seeds[MAXV * MAXV];
        size_t k = ni;
        memset(seeds, 0, ni * k * sizeof *seeds);
        for (int u = 0; u < nu; u++) seeds[(size_t)in_of[u] * k + (size_t)u] = 1;
        e = ad_forward(tape, work, x, diff, seeds, k, AD_STRICT, Jf, &d);
        if (!expect_true(&st_jac_fr, e == AD_E_NONE, "%s: forward sweep failed: %s", gid, d.msg))
            goto out;
        for (int r = 0; r < m; r++) {
            snprintf(where, sizeof where, "%s output %d value after forward", gid, r);
            cmp_bits(&st_jac_misc, where, ad_output_value(tape, work, (size_t)r), vals[r], 0);
            for (int u = 0; u < nu; u++) {
                double f = Jf[(size_t)r * k + (size_t)u];
                snprintf(where, sizeof where, "%s row %d (%s) d/d%s", gid, r, rows[r].id,
                         unames[u]);
                if (gs[r][u] == 0 && S[r][u] == 0)
                    expect_true(&st_jac_misc, f == 0, "%s: forward %.17g, want exactly 0", where, f);
                cmp(&st_jac_fr, where, f, J[r][u], FR_TOL, S[r][u]);
            }
        }
    }
    /* w^T J */
    {
        double w[16];
        for (int r = 0; r < m; r++) w[r] = rdir();
        e = ad_reverse_outputs(tape, work, diff, AD_STRICT, w, g, &d);
        if (expect_true(&st_vjp, e == AD_E_NONE, "%s: vjp sweep failed: %s", gid, d.msg)) {
            for (int u = 0; u < nu; u++) {
                double want = 0, mag = 0;
                for (int r = 0; r < m; r++) {
                    want += w[r] * J[r][u];
                    mag += fabs(w[r]) * fmax(fabs(J[r][u]), S[r][u]);
                }
                snprintf(where, sizeof where, "%s vjp d/d%s", gid, unames[u]);
                cmp(&st_vjp, where, g[in_of[u]], want, FR_TOL, mag);
            }
        }
    }
    /* J v */
    {
        double v[MAXV], sv[MAXV], jv[16];
        for (int u = 0; u < nu; u++) v[u] = rdir();
        for (int u = 0; u < nu; u++) sv[in_of[u]] = v[u];
        e = ad_forward(tape, work, x, diff, sv, 1, AD_STRICT, jv, &d);
        if (expect_true(&st_jvp, e == AD_E_NONE, "%s: jvp sweep failed: %s", gid, d.msg)) {
            for (int r = 0; r < m; r++) {
                double want = 0, mag = 0;
                for (int u = 0; u < nu; u++) {
                    want += Jf[(size_t)r * ni + (size_t)u] * v[u];
                    mag += fabs(v[u]) * fmax(fabs(Jf[(size_t)r * ni + (size_t)u]), S[r][u]);
                }
                snprintf(where, sizeof where, "%s jvp row %d", gid, r);
                cmp(&st_jvp, where, jv[r], want, FR_TOL, mag);
            }
        }
    }
out:
    free_names(unames, nu);
}

/* 2b: every row keeps its own variables (suffix _q<row>) and point */
static void jacobian_renamed(const grow *rows, int m)
{
    char *names[MAXV];
    double vals[MAXV], rg[MAXV], rv[16];
    int row_of[MAXV], col_of[MAXV], nt = 0;
    char *texts[16] = {NULL};
    static double refg[16][MAXV];
    char where[200], gid[64];
    snprintf(gid, sizeof gid, "renamed %s..%s", rows[0].id, rows[m - 1].id);
    for (int r = 0; r < m; r++) {
        char *nm[MAXV];
        double vv[MAXV];
        int n = parse_at(rows[r].at, nm, vv, MAXV);
        if (n < 0 || nt + n > MAXV || parse_list(rows[r].sgrad, rg, MAXV) != n ||
            num(rows[r].sval, &rv[r]) < 0) {
            if (n > 0) free_names(nm, n);
            failf(&st_jac_ref, "%s: malformed row or too many variables", rows[r].id);
            goto out;
        }
        char suffix[16];
        snprintf(suffix, sizeof suffix, "_q%d", r);
        size_t cap = strlen(rows[r].expr) * 4 + 64;
        texts[r] = malloc(cap);
        if (!texts[r] || rewrite(rows[r].expr, nm, n, suffix, texts[r], cap, NULL, 0) < 0) {
            free_names(nm, n);
            failf(&st_jac_ref, "%s: cannot rename", rows[r].id);
            goto out;
        }
        for (int j = 0; j < n; j++) {
            size_t l = strlen(nm[j]) + strlen(suffix) + 1;
            names[nt] = malloc(l);
            if (!names[nt]) { free_names(nm, n); goto out; }
            snprintf(names[nt], l, "%s%s", nm[j], suffix);
            vals[nt] = vv[j];
            row_of[nt] = r;
            col_of[nt] = j;
            refg[r][j] = rg[j];
            nt++;
        }
        free_names(nm, n);
    }
    const char *srcs[16];
    size_t lens[16], failed = 99;
    for (int r = 0; r < m; r++) {
        srcs[r] = texts[r];
        lens[r] = strlen(texts[r]);
    }
    ad_diag d;
    memset(&d, 0, sizeof d);
    long in_of[MAXV];
    double x[MAXV], g[MAXV];
    static double seeds[MAXV * MAXV], Jf[16 * MAXV];
    unsigned char diff[MAXV];
    ad_errclass e = ad_parse_many(tape, srcs, lens, (size_t)m, &failed, &d);
    if (!expect_true(&st_jac_ref, e == AD_E_NONE && ad_tape_ninputs(tape) == (size_t)nt &&
                                      bind_names(tape, names, vals, nt, in_of, x) == 0,
                     "%s: cannot record/bind (%s)", gid, d.msg))
        goto out;
    memset(diff, 1, (size_t)nt);
    e = ad_eval(tape, work, x, &d);
    if (!expect_true(&st_jac_ref, e == AD_E_NONE, "%s: evaluation failed: %s", gid, d.msg)) goto out;
    for (int r = 0; r < m; r++) {
        snprintf(where, sizeof where, "%s %s value", gid, rows[r].id);
        cmp(&st_jac_ref, where, ad_output_value(tape, work, (size_t)r), rv[r], REF_TOL, 0);
    }
    size_t k = (size_t)nt;
    memset(seeds, 0, k * k * sizeof *seeds);
    for (int c = 0; c < nt; c++) seeds[(size_t)in_of[c] * k + (size_t)c] = 1;
    e = ad_forward(tape, work, x, diff, seeds, k, AD_STRICT, Jf, &d);
    if (!expect_true(&st_jac_ref, e == AD_E_NONE, "%s: forward failed: %s", gid, d.msg)) goto out;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < nt; c++) {
            double f = Jf[(size_t)r * k + (size_t)c];
            snprintf(where, sizeof where, "%s forward %s d/d%s", gid, rows[r].id, names[c]);
            if (row_of[c] == r) cmp(&st_jac_ref, where, f, refg[r][col_of[c]], REF_TOL, 0);
            else expect_true(&st_jac_ref, f == 0, "%s: %.17g, want exactly 0", where, f);
        }
    double wout[16];
    for (int r = 0; r < m; r++) {
        for (int q = 0; q < m; q++) wout[q] = q == r;
        e = ad_reverse_outputs(tape, work, diff, AD_STRICT, wout, g, &d);
        if (!expect_true(&st_jac_ref, e == AD_E_NONE, "%s: reverse %d failed: %s", gid, r, d.msg))
            goto out;
        for (int c = 0; c < nt; c++) {
            double f = g[in_of[c]];
            snprintf(where, sizeof where, "%s reverse %s d/d%s", gid, rows[r].id, names[c]);
            if (row_of[c] == r) cmp(&st_jac_ref, where, f, refg[r][col_of[c]], REF_TOL, 0);
            else expect_true(&st_jac_ref, f == 0, "%s: %.17g, want exactly 0", where, f);
        }
    }
out:
    free_names(names, nt);
    for (int r = 0; r < m; r++) free(texts[r]);
}

/* errors in a set of sources name the source */
static void jacobian_errors(void)
{
    ad_diag d;
    size_t failed;
    struct {
        const char *srcs[3];
        size_t m, want_failed;
        ad_errclass want;
        int line, col;
    } pc[] = {
        {{"x*y", "sin(x", "y"}, 3, 1, AD_E_SYNTAX, 1, 6},
        {{"x", "y", "1 +* 2"}, 3, 2, AD_E_SYNTAX, 1, 4},
        {{"nosuchfn(x)", "y", "z"}, 3, 0, AD_E_NAME, 1, 1},
        {{"x", "\n  foo(y)", "z"}, 3, 1, AD_E_NAME, 2, 3},
    };
    for (size_t c = 0; c < sizeof pc / sizeof *pc; c++) {
        size_t lens[3];
        for (size_t i = 0; i < pc[c].m; i++) lens[i] = strlen(pc[c].srcs[i]);
        memset(&d, 0, sizeof d);
        failed = 99;
        ad_errclass e = ad_parse_many(tape, pc[c].srcs, lens, pc[c].m, &failed, &d);
        expect_true(&st_jac_misc,
                    e == pc[c].want && failed == pc[c].want_failed && d.line == pc[c].line &&
                        d.col == pc[c].col,
                    "parse_many case %zu: got %s, source %zu, at %d:%d (%s); want %s, source %zu, "
                    "at %d:%d",
                    c, ad_err_tag(e), failed, d.line, d.col, d.msg, ad_err_tag(pc[c].want),
                    pc[c].want_failed, pc[c].line, pc[c].col);
        expect_true(&st_jac_misc, ad_tape_noutputs(tape) == 0,
                    "parse_many case %zu: the failed tape keeps %zu outputs", c,
                    ad_tape_noutputs(tape));
    }
    /* evaluation and derivative errors carry the source index */
    struct {
        const char *srcs[3];
        ad_policy pol;
        int sweep;   /* 0: eval, 1: forward, 2: reverse of output 1 */
        ad_errclass want;
        int src, col;
    } ec[] = {
        {{"x*y", "log(x - 3)", "sqrt(y - 5)"}, AD_STRICT, 0, AD_E_DOMAIN, 1, 1},
        {{"x*y", "x + y", "1/(y - 2)"}, AD_STRICT, 0, AD_E_DOMAIN, 2, 2},
        {{"x", "2*abs(y - 2)", "x"}, AD_STRICT, 1, AD_E_NONDIFF, 1, 3},
        {{"x", "2*abs(y - 2)", "x"}, AD_STRICT, 2, AD_E_NONDIFF, 1, 3},
        {{"x", "y", "x + sqrt(y - 2)"}, AD_STRICT, 1, AD_E_DOMAIN, 2, 5},
        {{"x", "2*abs(y - 2)", "x + sqrt(y - 2)"}, AD_ZERO_SUBGRAD, 1, AD_E_NONE, 0, 0},
    };
    double x[2] = {1, 2}, out[3 * 2], g[2];
    double seeds[4] = {1, 0, 0, 1};
    unsigned char diff[2] = {1, 1};
    for (size_t c = 0; c < sizeof ec / sizeof *ec; c++) {
        size_t lens[3];
        for (size_t i = 0; i < 3; i++) lens[i] = strlen(ec[c].srcs[i]);
        memset(&d, 0, sizeof d);
        ad_errclass e = ad_parse_many(tape, ec[c].srcs, lens, 3, &failed, &d);
        long in_of[2];
        char *nm[2] = {"x", "y"};
        double xv[2] = {1, 2};
        if (e || bind_names(tape, nm, xv, 2, in_of, x) < 0) {
            failf(&st_jac_misc, "error case %zu: cannot record", c);
            continue;
        }
        memset(&d, 0, sizeof d);
        d.src = -1;
        if (ec[c].sweep == 0) {
            e = ad_eval(tape, work, x, &d);
        } else if (ec[c].sweep == 1) {
            e = ad_forward(tape, work, x, diff, seeds, 2, ec[c].pol, out, &d);
        } else {
            double w[3] = {0, 1, 0};
            e = ad_eval(tape, work, x, &d);
            if (!e) e = ad_reverse_outputs(tape, work, diff, ec[c].pol, w, g, &d);
        }
        if (ec[c].want == AD_E_NONE)
            expect_true(&st_jac_misc, e == AD_E_NONE, "error case %zu: got %s (%s), want success",
                        c, ad_err_tag(e), d.msg);
        else
            expect_true(&st_jac_misc, e == ec[c].want && d.src == ec[c].src && d.col == ec[c].col,
                        "error case %zu: got %s in source %d col %d (%s); want %s in source %d col "
                        "%d",
                        c, ad_err_tag(e), d.src, d.col, d.msg, ad_err_tag(ec[c].want), ec[c].src,
                        ec[c].col);
    }
}

static int jacobian_section(const char *dir)
{
    static const char *const cols[] = {"id", "expr", "at", "value", "grad"};
    table t;
    if (table_load(dir, "grad.tsv", cols, 5, &t) < 0) { table_free(&t); return -1; }
    if (t.n != 2000 + 50 + 20 + 31) failf(&st_jac_misc, "grad.tsv has %zu cases, the README promises 2101", t.n);
    size_t r = 0;
    long groups = 0;
    grow rows[16];
    for (int gi = 0; r < t.n; gi++) {
        int m = group_sizes[gi % (int)(sizeof group_sizes / sizeof *group_sizes)];
        if ((size_t)m > t.n - r) m = (int)(t.n - r);
        for (int i = 0; i < m; i++)
            rows[i] = (grow){fld(&t, r + (size_t)i, 0), fld(&t, r + (size_t)i, 1),
                             fld(&t, r + (size_t)i, 2), fld(&t, r + (size_t)i, 3),
                             fld(&t, r + (size_t)i, 4)};
        fail_budget = 6;
        suppressed = 0;
        jacobian_shared(rows, m);
        jacobian_renamed(rows, m);
        fail_budget = -1;
        if (suppressed)
            printf("FAIL (%ld more failures in group %s..%s not shown)\n", suppressed, rows[0].id,
                   rows[m - 1].id);
        r += (size_t)m;
        groups++;
    }
    printf("grad.tsv: %zu cases in %ld groups\n", t.n, groups);
    jacobian_errors();

    /* 3c on grad.tsv: Taylor along all ones, coef[1] against the sum of
     * the reference gradient; coef[0] against ad_eval */
    for (size_t i = 0; i < t.n; i++) {
        const char *id = fld(&t, i, 0), *expr = fld(&t, i, 1);
        char *names[MAXV];
        double vals[MAXV], rg[MAXV], x[MAXV], dir[MAXV], coef[3];
        long in_of[MAXV];
        unsigned char diff[MAXV];
        ad_diag d;
        char where[160];
        int n = parse_at(fld(&t, i, 2), names, vals, MAXV);
        if (n < 0 || parse_list(fld(&t, i, 4), rg, MAXV) != n) {
            failf(&st_tay_corpus, "%s: malformed", id);
            if (n > 0) free_names(names, n);
            continue;
        }
        if (ad_parse(tape, expr, strlen(expr), &d) || bind_names(tape, names, vals, n, in_of, x) < 0) {
            failf(&st_tay_corpus, "%s: cannot record", id);
            free_names(names, n);
            continue;
        }
        size_t ni = ad_tape_ninputs(tape);
        memset(diff, 1, ni ? ni : 1);
        for (size_t q = 0; q < ni; q++) dir[q] = 1;
        ad_errclass e = ad_taylor(tape, work, x, diff, dir, 2, AD_STRICT, coef, &d);
        if (e) {
            failf(&st_tay_corpus, "%s: ad_taylor failed: %s at %d:%d: %s", id, ad_err_tag(e),
                  d.line, d.col, d.msg);
        } else {
            double want = 0, mag = 0, value;
            for (int j = 0; j < n; j++) {
                want += rg[j];
                mag += fabs(rg[j]);
            }
            snprintf(where, sizeof where, "%s coef[1] vs sum of the gradient", id);
            cmp(&st_tay_corpus, where, coef[1], want, REF_TOL, mag);
            if (ad_eval(tape, work2, x, &d) == AD_E_NONE) {
                value = ad_value(tape, work2);
                snprintf(where, sizeof where, "%s coef[0]", id);
                cmp_bits(&st_tay_zero, where, coef[0], value, 0);
            }
        }
        free_names(names, n);
    }
    table_free(&t);
    return 0;
}

/* ======================================================================
 * 3. Taylor
 * ====================================================================== */

/* runs ad_taylor on a one-tape expression; returns the error class.  Checks
 * coef[0] against ad_eval bit for bit when it succeeds. */
static ad_errclass taylor_run(const char *expr, char *const *names, const double *vals, int n,
                              const double *dirv, int K, ad_policy pol, double *coef, ad_diag *d)
{
    long in_of[MAXV];
    double x[MAXV], dir[MAXV];
    unsigned char diff[MAXV];
    memset(d, 0, sizeof *d);
    ad_errclass e = ad_parse(tape, expr, strlen(expr), d);
    if (e) return e;
    if (bind_names(tape, names, vals, n, in_of, x) < 0) {
        ad_diag_set(d, AD_E_NAME, 0, 0, "test: cannot bind '%s'", expr);
        return AD_E_NAME;
    }
    size_t ni = ad_tape_ninputs(tape);
    for (size_t i = 0; i < ni; i++) diff[i] = 0, dir[i] = 0;
    for (int j = 0; j < n; j++)
        if (in_of[j] >= 0) {
            diff[in_of[j]] = 1;
            dir[in_of[j]] = dirv[j];
        }
    e = ad_taylor(tape, work, x, diff, dir, K, pol, coef, d);
    if (!e) {
        ad_diag d2;
        char where[160];
        if (ad_eval(tape, work2, x, &d2) == AD_E_NONE) {
            snprintf(where, sizeof where, "%s coef[0]", expr);
            cmp_bits(&st_tay_zero, where, coef[0], ad_value(tape, work2), 0);
        } else {
            failf(&st_tay_zero, "%s: ad_eval failed where ad_taylor did not", expr);
        }
    }
    return e;
}

typedef enum {
    T_EXP, T_SIN, T_COS, T_RECIP1M, T_LOG, T_POW, T_ATAN, T_EXPSIN, T_EXPXSIN
} tkind;

/* the exact coefficients c[0..K] of f(x0 + t) in long double, and M[k],
 * the scale each is judged by (|c[k]|, or a majorant series) */
static void taylor_ref(tkind kind, long double x0, long double p, int K, long double *c,
                       long double *M)
{
    long double fact = 1;   /* k! */
    switch (kind) {
    case T_EXP:
        for (int k = 0; k <= K; k++) {
            if (k) fact *= k;
            c[k] = expl(x0) / fact;
        }
        break;
    case T_SIN:
    case T_COS: {
        long double s = sinl(x0), co = cosl(x0);
        for (int k = 0; k <= K; k++) {
            if (k) fact *= k;
            int q = (k + (kind == T_COS)) % 4;   /* cos(x) = sin(x + pi/2) */
            long double v = q == 0 ? s : q == 1 ? co : q == 2 ? -s : -co;
            c[k] = v / fact;
        }
        break;
    }
    case T_RECIP1M:
        for (int k = 0; k <= K; k++) c[k] = powl(1 - x0, -(long double)(k + 1));
        break;
    case T_LOG:
        c[0] = logl(x0);
        for (int k = 1; k <= K; k++) c[k] = ((k % 2) ? 1.0L : -1.0L) / (k * powl(x0, k));
        break;
    case T_POW: {
        long double b = 1;   /* binomial(p, k) */
        for (int k = 0; k <= K; k++) {
            if (k) b *= (p - (k - 1)) / k;
            c[k] = b == 0 ? 0 : b * powl(x0, p - k);
        }
        break;
    }
    case T_ATAN: {
        /* c_k = -Im(u^k) / k, u = (-x0 - i) / (1 + x0^2); |c_k| <= |u|^k / k */
        long double den = 1 + x0 * x0, ur = -x0 / den, ui = -1 / den, pr = 1, pi_ = 0;
        c[0] = atanl(x0);
        M[0] = fabsl(c[0]);
        for (int k = 1; k <= K; k++) {
            long double nr = pr * ur - pi_ * ui, nim = pr * ui + pi_ * ur;
            pr = nr;
            pi_ = nim;
            c[k] = -pi_ / k;
            M[k] = sqrtl(pr * pr + pi_ * pi_) / k;
        }
        return;
    }
    case T_EXPSIN: {
        /* y = exp(sin x): y' = cos(x) y, so (k+1) y[k+1] = sum_j C[j] y[k-j]
         * with C the coefficients of cos; M: the same with |C[j]| */
        long double C[64], s = sinl(x0), co = cosl(x0);
        for (int j = 0; j <= K; j++) {
            if (j) fact *= j;
            int q = (j + 1) % 4;
            C[j] = (q == 0 ? s : q == 1 ? co : q == 2 ? -s : -co) / fact;
        }
        c[0] = expl(s);
        M[0] = c[0];
        for (int k = 0; k < K; k++) {
            long double a = 0, b = 0;
            for (int j = 0; j <= k; j++) {
                a += C[j] * c[k - j];
                b += fabsl(C[j]) * M[k - j];
            }
            c[k + 1] = a / (k + 1);
            M[k + 1] = b / (k + 1);
        }
        return;
    }
    case T_EXPXSIN: {
        /* exp(x) sin(x) = Im exp((1+i) x): c_k = e^x0 2^(k/2) sin(x0 + k pi/4) / k! */
        for (int k = 0; k <= K; k++) {
            if (k) fact *= k;
            long double m = expl(x0) * powl(2, k / 2.0L) / fact;
            c[k] = m * sinl(x0 + k * 0.78539816339744830961566084581987572L);
            M[k] = m;
        }
        return;
    }
    }
    for (int k = 0; k <= K; k++) M[k] = fabsl(c[k]);
}

static void taylor_closed(void)
{
    struct {
        const char *expr;
        tkind kind;
        double p;
        double x0[4];
        int nx;
    } cs[] = {
        {"exp(x)", T_EXP, 0, {-1.5, 0, 0.7, 3}, 4},
        {"sin(x)", T_SIN, 0, {0, 0.5, -2.3, 10}, 4},
        {"cos(x)", T_COS, 0, {0, 0.5, -2.3, 10}, 4},
        {"1/(1-x)", T_RECIP1M, 0, {0, 0.3, -0.9, 2.5}, 4},
        {"log(x)", T_LOG, 0, {1, 0.25, 3.7, 0}, 3},
        {"sqrt(x)", T_POW, 0.5, {1, 0.36, 5, 0}, 3},
        {"x^2.5", T_POW, 2.5, {1.3, 0.7, 0}, 2},
        {"x^(-1.5)", T_POW, -1.5, {1.3, 0.7, 0}, 2},
        {"x^0.3", T_POW, 0.3, {2.2, 0}, 1},
        {"pow(x, 7)", T_POW, 7, {1.3, -0.8, 0}, 2},
        {"atan(x)", T_ATAN, 0, {0, 0.5, -2, 10}, 4},
        {"exp(sin(x))", T_EXPSIN, 0, {0, 0.7, -1.9, 0}, 3},
        {"exp(x)*sin(x)", T_EXPXSIN, 0, {0, 1.1, 0}, 2},
    };
    long double c[64], M[64];
    double coef[64];
    char where[160];
    char *nm[1] = {"x"};
    double one[1] = {1};
    ad_diag d;
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++)
        for (int j = 0; j < cs[i].nx; j++) {
            int K = 16;
            double x0 = cs[i].x0[j];
            ad_errclass e = taylor_run(cs[i].expr, nm, &x0, 1, one, K, AD_STRICT, coef, &d);
            if (e) {
                failf(&st_tay, "%s at %g: %s at %d:%d: %s", cs[i].expr, x0, ad_err_tag(e), d.line,
                      d.col, d.msg);
                continue;
            }
            taylor_ref(cs[i].kind, x0, cs[i].p, K, c, M);
            for (int k = 0; k <= K; k++) {
                snprintf(where, sizeof where, "%s at x=%g coef[%d]", cs[i].expr, x0, k);
                cmp(&st_tay, where, coef[k], (double)c[k], TAY_TOL, (double)M[k]);
            }
        }
    /* exp(sin(x)) at 0: k! c_k are the integers of OEIS A002017, plain relative */
    {
        static const double a002017[17] = {1, 1, 1, 0, -3, -8, -3, 56, 217, 64, -2951, -12672,
                                           5973, 309376, 1237173, -2917888, -52635599};
        double x0 = 0;
        if (taylor_run("exp(sin(x))", nm, &x0, 1, one, 16, AD_STRICT, coef, &d) == AD_E_NONE) {
            long double fact = 1;
            for (int k = 0; k <= 16; k++) {
                if (k) fact *= k;
                snprintf(where, sizeof where, "exp(sin(x)) at 0, k! coef[%d] vs A002017", k);
                cmp(&st_tay, where, (double)(coef[k] * fact), a002017[k], TAY_TOL, 0);
            }
        } else {
            failf(&st_tay, "exp(sin(x)) at 0: %s", d.msg);
        }
    }
    /* a direction of length 2 scales coef[k] by 2^k */
    {
        double x0 = 0.4, two[1] = {2}, c1[17];
        if (taylor_run("exp(sin(x))", nm, &x0, 1, one, 16, AD_STRICT, c1, &d) == AD_E_NONE &&
            taylor_run("exp(sin(x))", nm, &x0, 1, two, 16, AD_STRICT, coef, &d) == AD_E_NONE) {
            for (int k = 0; k <= 16; k++) {
                snprintf(where, sizeof where, "exp(sin(x)) at 0.4 along 2: coef[%d] vs 2^k", k);
                cmp(&st_tay, where, coef[k], ldexp(c1[k], k), TAY_TOL, 0);
            }
        } else {
            failf(&st_tay, "exp(sin(x)) along 2: %s", d.msg);
        }
    }
    /* once to order 40 */
    {
        struct { const char *expr; tkind kind; double p, x0; } big[] = {
            {"exp(sin(x))", T_EXPSIN, 0, 0.7},
            {"1/(1-x)", T_RECIP1M, 0, 0.3},
            {"atan(x)", T_ATAN, 0, 0.5},
        };
        for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
            double x0 = big[i].x0;
            ad_errclass e = taylor_run(big[i].expr, nm, &x0, 1, one, 40, AD_STRICT, coef, &d);
            if (e) {
                failf(&st_tay40, "%s order 40: %s", big[i].expr, d.msg);
                continue;
            }
            taylor_ref(big[i].kind, x0, big[i].p, 40, c, M);
            for (int k = 0; k <= 40; k++) {
                snprintf(where, sizeof where, "%s at x=%g coef[%d] (K=40)", big[i].expr, x0, k);
                cmp(&st_tay40, where, coef[k], (double)c[k], TAY40_TOL, (double)M[k]);
            }
        }
    }
    /* K = 0: the value alone */
    {
        double x0 = 0.3, c0[1] = {-1};
        ad_errclass e = taylor_run("exp(x)", nm, &x0, 1, one, 0, AD_STRICT, c0, &d);
        if (expect_true(&st_tay, e == AD_E_NONE, "exp(x) order 0: %s", d.msg))
            cmp(&st_tay, "exp(x) at 0.3 order 0", c0[0], exp(0.3), 0, 0);
    }
}

/* two variables along a direction, against closed forms; also order 1 and
 * 2 against ad_forward and ad_hessian */
static void taylor_directional(void)
{
    enum { K = 12 };
    char *nm[2] = {"x", "y"};
    char where[160];
    ad_diag d;
    double coef[K + 1];
    long double c[K + 1], M[K + 1];
    struct { const char *expr; double x0, y0, u, v; } cs[] = {
        {"exp(x*y)", 0.6, -1.3, 0.8, 0.45},
        {"sin(x + 2*y)", 0.4, 1.1, -0.7, 0.6},
        {"atan2(y, x)", -1.2, 0.8, 0.5, -0.3},
        {"x^3*y^2", 1.5, -0.5, 0.25, 2},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        long double x0 = cs[i].x0, y0 = cs[i].y0, u = cs[i].u, v = cs[i].v;
        double pt[2] = {cs[i].x0, cs[i].y0}, dv[2] = {cs[i].u, cs[i].v};
        ad_errclass e = taylor_run(cs[i].expr, nm, pt, 2, dv, K, AD_STRICT, coef, &d);
        if (e) {
            failf(&st_tay_dir, "%s: %s at %d:%d: %s", cs[i].expr, ad_err_tag(e), d.line, d.col, d.msg);
            continue;
        }
        long double fact[K + 1];
        fact[0] = 1;
        for (int k = 1; k <= K; k++) fact[k] = fact[k - 1] * k;
        switch (i) {
        case 0: {
            /* exp(x0 y0 + b t + q t^2), b = x0 v + y0 u, q = u v */
            long double b = x0 * v + y0 * u, q = u * v, e0 = expl(x0 * y0);
            for (int k = 0; k <= K; k++) {
                long double s = 0, m = 0;
                for (int j = 0; 2 * j <= k; j++) {
                    long double term = powl(b, k - 2 * j) * powl(q, j) / (fact[k - 2 * j] * fact[j]);
                    s += term;
                    m += fabsl(term);
                }
                c[k] = e0 * s;
                M[k] = e0 * m;
            }
            break;
        }
        case 1: {
            /* sin(th + s t) */
            long double th = x0 + 2 * y0, s = u + 2 * v;
            for (int k = 0; k <= K; k++) {
                int q = k % 4;
                long double f = q == 0 ? sinl(th) : q == 1 ? cosl(th) : q == 2 ? -sinl(th) : -cosl(th);
                c[k] = powl(s, k) * f / fact[k];
                M[k] = fabsl(c[k]);
            }
            break;
        }
        case 2: {
            /* arg(z0 + w t) = arg z0 + sum_k Im((-1)^(k+1) (w/z0)^k / k) */
            long double zr = x0, zi = y0, wr = u, wi = v, den = zr * zr + zi * zi;
            long double rr = (wr * zr + wi * zi) / den, ri = (wi * zr - wr * zi) / den;
            long double pr = 1, pim = 0;
            c[0] = atan2l(y0, x0);
            M[0] = fabsl(c[0]);
            for (int k = 1; k <= K; k++) {
                long double nr = pr * rr - pim * ri, ni = pr * ri + pim * rr;
                pr = nr;
                pim = ni;
                c[k] = ((k % 2) ? 1 : -1) * pim / k;
                M[k] = sqrtl(pr * pr + pim * pim) / k;
            }
            break;
        }
        case 3: {
            /* (x0 + u t)^3 (y0 + v t)^2: a finite convolution of binomials */
            static const int b3[4] = {1, 3, 3, 1}, b2[3] = {1, 2, 1};
            for (int k = 0; k <= K; k++) {
                long double s = 0, m = 0;
                for (int a = 0; a <= 3; a++) {
                    int b = k - a;
                    if (b < 0 || b > 2) continue;
                    long double term = b3[a] * powl(x0, 3 - a) * powl(u, a) * b2[b] *
                                       powl(y0, 2 - b) * powl(v, b);
                    s += term;
                    m += fabsl(term);
                }
                c[k] = s;
                M[k] = m;
            }
            break;
        }
        }
        for (int k = 0; k <= K; k++) {
            snprintf(where, sizeof where, "%s at (%g,%g) along (%g,%g) coef[%d]", cs[i].expr,
                     cs[i].x0, cs[i].y0, cs[i].u, cs[i].v, k);
            cmp(&st_tay_dir, where, coef[k], (double)c[k], TAY_TOL, (double)M[k]);
        }
        /* against the other engines on the same tape (taylor_run left it there) */
        long in_of[2];
        double x[2], sd[2], jv, g[2], hv[2];
        unsigned char diff[2] = {1, 1};
        if (bind_names(tape, nm, pt, 2, in_of, x) < 0 || ad_tape_ninputs(tape) != 2) continue;
        sd[in_of[0]] = dv[0];
        sd[in_of[1]] = dv[1];
        if (ad_forward(tape, work, x, diff, sd, 1, AD_STRICT, &jv, &d) == AD_E_NONE) {
            snprintf(where, sizeof where, "%s coef[1] vs ad_forward", cs[i].expr);
            cmp(&st_tay_x, where, coef[1], jv, FR_TOL, (double)M[1]);
        } else {
            failf(&st_tay_x, "%s: ad_forward failed: %s", cs[i].expr, d.msg);
        }
        if (ad_hessian(tape, work, x, diff, sd, 1, AD_STRICT, g, hv, &d) == AD_E_NONE) {
            double q = sd[0] * hv[0] + sd[1] * hv[1];
            double mag = fabs(sd[0] * hv[0]) + fabs(sd[1] * hv[1]);
            snprintf(where, sizeof where, "%s 2 coef[2] vs v'Hv", cs[i].expr);
            cmp(&st_tay_x, where, 2 * coef[2], q, HVP_TOL, fmax(mag, 2 * (double)M[2]));
        } else {
            failf(&st_tay_x, "%s: ad_hessian failed: %s", cs[i].expr, d.msg);
        }
    }
}

/* corpus: jvp.tsv along its seed */
static int taylor_jvp_corpus(const char *dir)
{
    static const char *const cols[] = {"id", "expr", "at", "seed", "jvp"};
    table t;
    if (table_load(dir, "jvp.tsv", cols, 5, &t) < 0) { table_free(&t); return -1; }
    for (size_t r = 0; r < t.n; r++) {
        const char *id = fld(&t, r, 0), *expr = fld(&t, r, 1);
        char *names[MAXV], *snames[MAXV], where[160];
        double vals[MAXV], sv[MAXV], dirv[MAXV], rj, coef[3];
        int n = parse_at(fld(&t, r, 2), names, vals, MAXV);
        int ns = parse_at(fld(&t, r, 3), snames, sv, MAXV);
        if (n < 0 || ns != n || num(fld(&t, r, 4), &rj) < 0) {
            failf(&st_tay_corpus, "%s: malformed", id);
            if (n > 0) free_names(names, n);
            if (ns > 0) free_names(snames, ns);
            continue;
        }
        for (int j = 0; j < n; j++) {
            dirv[j] = 0;
            for (int s = 0; s < ns; s++)
                if (strcmp(snames[s], names[j]) == 0) dirv[j] = sv[s];
        }
        ad_diag d;
        ad_errclass e = taylor_run(expr, names, vals, n, dirv, 2, AD_STRICT, coef, &d);
        if (e) {
            failf(&st_tay_corpus, "%s: %s at %d:%d: %s", id, ad_err_tag(e), d.line, d.col, d.msg);
        } else {
            snprintf(where, sizeof where, "%s coef[1] vs jvp", id);
            cmp(&st_tay_corpus, where, coef[1], rj, REF_TOL, 0);
        }
        free_names(names, n);
        free_names(snames, ns);
    }
    printf("jvp.tsv: %zu cases\n", t.n);
    table_free(&t);
    return 0;
}

/* singular points and kinks under both policies */
static void edges(void)
{
    char *nm1[1] = {"x"}, *nm2[2] = {"x", "y"};
    double one[1] = {1}, coef[8];
    ad_diag d;
    char where[160];
    struct {
        const char *expr;
        int nv;
        double x0, y0, u, v;
        int K;
        ad_policy pol;
        ad_errclass want;
        double c[4];   /* when want is AD_E_NONE: coef[0..min(K,3)] */
    } tc[] = {
        /* a finite first derivative at a zero base: x^1.5 = 0 + 0 t + ... */
        {"x^1.5", 1, 0, 0, 1, 0, 1, AD_STRICT, AD_E_NONE, {0, 0}},
        /* the second derivative 0.75 x^-0.5 is infinite */
        {"x^1.5", 1, 0, 0, 1, 0, 2, AD_STRICT, AD_E_DOMAIN, {0}},
        {"x^1.5", 1, 0, 0, 1, 0, 2, AD_ZERO_SUBGRAD, AD_E_NONE, {0, 0, 0}},
        /* x^2.5: f'' = 3.75 x^0.5 = 0 at 0, f''' infinite */
        {"x^2.5", 1, 0, 0, 1, 0, 2, AD_STRICT, AD_E_NONE, {0, 0, 0}},
        {"x^2.5", 1, 0, 0, 1, 0, 3, AD_STRICT, AD_E_DOMAIN, {0}},
        {"x^2.5", 1, 0, 0, 1, 0, 3, AD_ZERO_SUBGRAD, AD_E_NONE, {0, 0, 0, 0}},
        {"sqrt(x)", 1, 0, 0, 1, 0, 1, AD_STRICT, AD_E_DOMAIN, {0}},
        {"sqrt(x)", 1, 0, 0, 1, 0, 2, AD_ZERO_SUBGRAD, AD_E_NONE, {0, 0, 0}},
        {"x^2", 1, 0, 0, 1, 0, 3, AD_STRICT, AD_E_NONE, {0, 0, 1, 0}},
        {"x^3", 1, 0, 0, 1, 0, 3, AD_STRICT, AD_E_NONE, {0, 0, 0, 1}},
        {"abs(x)", 1, 0, 0, 1, 0, 1, AD_STRICT, AD_E_NONDIFF, {0}},
        {"abs(x)", 1, 0, 0, 1, 0, 3, AD_ZERO_SUBGRAD, AD_E_NONE, {0, 0, 0, 0}},
        {"max(x, y)", 2, 1, 1, 1, 1, 2, AD_STRICT, AD_E_NONDIFF, {0}},
        {"max(x, y)", 2, 1, 1, 1, 1, 2, AD_ZERO_SUBGRAD, AD_E_NONE, {1, 0, 0}},
        /* not a kink: the tie is not the maximum */
        {"max(x, y, 5)", 2, 1, 1, 1, 1, 2, AD_STRICT, AD_E_NONE, {5, 0, 0}},
        /* x^y at (0, 2) along (1, 1): t^(2+t) = t^2 + t^3 log t + ...: the
         * second coefficient is 1 = v'Hv/2 with H = [[2, 0], [0, 0]] */
        {"x^y", 2, 0, 2, 1, 1, 2, AD_STRICT, AD_E_NONE, {0, 0, 1}},
        {"x^y", 2, 0, 2, 1, 0, 2, AD_STRICT, AD_E_NONE, {0, 0, 1}},
        {"x^y", 2, 0, 2, 0, 1, 3, AD_STRICT, AD_E_NONE, {0, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof tc / sizeof *tc; i++) {
        double pt[2] = {tc[i].x0, tc[i].y0}, dv[2] = {tc[i].u, tc[i].v};
        for (int k = 0; k < 8; k++) coef[k] = -12345;
        ad_errclass e = taylor_run(tc[i].expr, tc[i].nv == 1 ? nm1 : nm2, pt, tc[i].nv,
                                   tc[i].nv == 1 ? one : dv, tc[i].K, tc[i].pol, coef, &d);
        snprintf(where, sizeof where, "taylor %s at (%g,%g) along (%g,%g) order %d %s", tc[i].expr,
                 tc[i].x0, tc[i].y0, tc[i].u, tc[i].v, tc[i].K,
                 tc[i].pol == AD_STRICT ? "strict" : "zero-subgrad");
        if (!expect_true(&st_edge, e == tc[i].want, "%s: got %s (%s), want %s", where,
                         e ? ad_err_tag(e) : "success", e ? d.msg : "", 
                         tc[i].want ? ad_err_tag(tc[i].want) : "success"))
            continue;
        if (e) continue;
        for (int k = 0; k <= tc[i].K && k < 4; k++) {
            char w2[200];
            snprintf(w2, sizeof w2, "%s coef[%d]", where, k);
            cmp(&st_edge, w2, coef[k], tc[i].c[k], TAY_TOL, 0);
        }
    }
    /* the Hessian at the same kind of points */
    struct {
        const char *expr;
        int nv;
        double x0, y0;
        ad_policy pol;
        ad_errclass want;
        double h[4];
    } hc[] = {
        {"x^1.5", 1, 0, 0, AD_STRICT, AD_E_DOMAIN, {0}},
        {"x^1.5", 1, 0, 0, AD_ZERO_SUBGRAD, AD_E_NONE, {0}},
        {"x^2.5", 1, 0, 0, AD_STRICT, AD_E_NONE, {0}},
        {"abs(x)*y", 2, 0, 2, AD_STRICT, AD_E_NONDIFF, {0}},
        {"abs(x)*y", 2, 0, 2, AD_ZERO_SUBGRAD, AD_E_NONE, {0, 0, 0, 0}},
        {"x^y", 2, 0, 2, AD_STRICT, AD_E_NONE, {2, 0, 0, 0}},
        {"x^y", 2, 0, 3, AD_STRICT, AD_E_NONE, {0, 0, 0, 0}},
        {"x*y + max(x, y)", 2, 1, 1, AD_ZERO_SUBGRAD, AD_E_NONE, {0, 1, 1, 0}},
    };
    for (size_t i = 0; i < sizeof hc / sizeof *hc; i++) {
        char **nm = hc[i].nv == 1 ? nm1 : nm2;
        double pt[2] = {hc[i].x0, hc[i].y0}, x[2], g[2], hs[4], seeds[4];
        long in_of[2];
        unsigned char diff[2] = {1, 1};
        memset(&d, 0, sizeof d);
        snprintf(where, sizeof where, "hessian %s at (%g,%g) %s", hc[i].expr, hc[i].x0, hc[i].y0,
                 hc[i].pol == AD_STRICT ? "strict" : "zero-subgrad");
        if (ad_parse(tape, hc[i].expr, strlen(hc[i].expr), &d) ||
            bind_names(tape, nm, pt, hc[i].nv, in_of, x) < 0) {
            failf(&st_edge, "%s: cannot record", where);
            continue;
        }
        size_t n = (size_t)hc[i].nv;
        memset(seeds, 0, sizeof seeds);
        for (size_t j = 0; j < n; j++) seeds[(size_t)in_of[j] * n + j] = 1;
        ad_errclass e = ad_hessian(tape, work, x, diff, seeds, n, hc[i].pol, g, hs, &d);
        if (!expect_true(&st_edge, e == hc[i].want, "%s: got %s (%s), want %s", where,
                         e ? ad_err_tag(e) : "success", e ? d.msg : "",
                         hc[i].want ? ad_err_tag(hc[i].want) : "success"))
            continue;
        if (e) continue;
        for (size_t a = 0; a < n; a++)
            for (size_t b = 0; b < n; b++) {
                char w2[256];
                snprintf(w2, sizeof w2, "%s H[%zu,%zu]", where, a, b);
                cmp(&st_edge, w2, hs[(size_t)in_of[a] * n + b], hc[i].h[a * n + b], TAY_TOL, 0);
            }
    }
}

int main(int argc, char **argv)
{
    char dir[4096];
    if (argc > 1) {
        snprintf(dir, sizeof dir, "%s", argv[1]);
    } else {
        const char *top = getenv("top_srcdir");
        if (!top) {
            fprintf(stderr, "usage: %s CORPUS_DIR (or set top_srcdir)\n", argv[0]);
            return 99;
        }
        snprintf(dir, sizeof dir, "%s/tests/corpus", top);
    }
    tape = ad_tape_new();
    tape2 = ad_tape_new();
    split_tape = ad_tape_new();
    work = ad_work_new();
    work2 = ad_work_new();
    if (!tape || !tape2 || !split_tape || !work || !work2) {
        fprintf(stderr, "out of memory\n");
        return 99;
    }
    int bad = 0;
    bad |= hessian_section(dir) < 0;
    bad |= jacobian_section(dir) < 0;
    taylor_closed();
    taylor_directional();
    bad |= taylor_jvp_corpus(dir) < 0;
    edges();
    print_stats();
    ad_tape_free(tape);
    ad_tape_free(tape2);
    ad_tape_free(split_tape);
    ad_work_free(work);
    ad_work_free(work2);
    if (bad) {
        printf("ERROR: the corpus could not be read\n");
        return 99;
    }
    printf("%s (%ld failed checks)\n", total_fail ? "FAILED" : "all derivative checks passed",
           total_fail);
    return total_fail ? 1 : 0;
}
