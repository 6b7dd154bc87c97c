/* program.c - whole sources (ad_parse, ad_parse_many) as programs:
 * statements separated by ';' or line ends, '#' comments, assignments
 * (name = expr; each writes fresh tape nodes, so reassignment is SSA and
 * x = x + 1 still differentiates with respect to the input x) and user
 * functions (f(u, v) = expr), whose body call.c inlines at each call.  The
 * last expression statement is the output.  The top of the parse layer:
 * program.c -> parse.c (a span) -> the grammar -> call.c (names, calls),
 * which parses a function's body as a span again (the one recursion). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "parse.h"
#include "alloc.h"

static int idstart(int c) { return isalpha(c) || c == '_'; }
static int idchar(int c) { return isalnum(c) || c == '_'; }

/* advance over one byte, keeping line:col */
static void step(const char *s, size_t *i, int *line, int *col)
{
    if (s[*i] == '\n') { (*line)++; *col = 1; }
    else (*col)++;
    (*i)++;
}

/* skip blanks, line ends and comments in [*i, end) */
static void skip_space(const char *s, size_t end, size_t *i, int *line, int *col)
{
    while (*i < end) {
        if (s[*i] == '#') {
            while (*i < end && s[*i] != '\n') step(s, i, line, col);
        } else if (isspace((unsigned char)s[*i])) {
            step(s, i, line, col);
        } else {
            break;
        }
    }
}

/* ---- statements of control flow (flow.c runs them) ---- */

/* the keyword s[i..end) starts with, as a statement kind; AD_STMT_EMPTY
 * for none */
static ad_stmt_kind keyword_at(const char *s, size_t end, size_t i)
{
    static const struct { const char *w; ad_stmt_kind k; } kw[] = {
        {"if", AD_STMT_IF}, {"while", AD_STMT_WHILE}, {"for", AD_STMT_FOR}, {"else", AD_STMT_ELSE}};
    for (size_t k = 0; k < sizeof kw / sizeof *kw; k++) {
        size_t n = strlen(kw[k].w);
        if (end - i >= n && !memcmp(s + i, kw[k].w, n) && (i + n == end || !idchar((unsigned char)s[i + n])))
            return kw[k].k;
    }
    return AD_STMT_EMPTY;
}

/* past the comment or the byte at s[i] */
static size_t skip_comment(const char *s, size_t end, size_t i)
{
    if (s[i] != '#') return i + 1;
    while (i < end && s[i] != '\n') i++;
    return i;
}

/* 1 when the 'if' at s[i] starts a statement (if COND { ... }), not the
 * expression if(cond, a, b): a '{' comes, outside parentheses, before
 * the expression would end */
static int if_is_statement(const char *s, size_t end, size_t i)
{
    size_t j = i + 2;
    while (j < end && (s[j] == ' ' || s[j] == '\t')) j++;
    if (j >= end || s[j] != '(') return 1;
    int depth = 0;
    char last = 0;
    for (; j < end; j = skip_comment(s, end, j)) {
        char c = s[j];
        if (c == '(') depth++;
        else if (c == ')') depth--;
        if (depth > 0) continue;
        if (c == '{') return 1;
        if (c == ';' || c == '}') return 0;
        if (c == '\n' && (idchar((unsigned char)last) || last == '.' || last == ')' || last == ']')) {
            size_t k = j;
            while (k < end && isspace((unsigned char)s[k])) k++;
            if (k >= end || s[k] != '{') return 0;
        }
        if (!isspace((unsigned char)c)) last = c;
    }
    return 0;
}

size_t adi_block_open(const char *s, size_t end, size_t i)
{
    int depth = 0;
    for (; i < end; i = skip_comment(s, end, i)) {
        char c = s[i];
        if (c == '(') depth++;
        else if (c == ')') depth--;
        else if (depth <= 0 && (c == '{' || c == '}' || c == ';')) return i;
    }
    return end;
}

size_t adi_block_close(const char *s, size_t end, size_t i)
{
    size_t depth = 0;
    for (; i < end; i = skip_comment(s, end, i)) {
        if (s[i] == '{') depth++;
        else if (s[i] == '}' && --depth == 0) return i;
    }
    return end;
}

size_t adi_skip_space(const char *s, size_t end, size_t i)
{
    while (i < end && (isspace((unsigned char)s[i]) || s[i] == '#')) i = skip_comment(s, end, i);
    return i;
}

int adi_is_else(const char *s, size_t end, size_t i) { return i < end && keyword_at(s, end, i) == AD_STMT_ELSE; }

/* the end of the statement of control flow at s[i]: just past the '}' of
 * its last block (else if, else included), or where it stops making sense
 * (flow.c then says what is wrong) */
static size_t control_end(const char *s, size_t end, size_t i)
{
    for (;;) {
        size_t open = adi_block_open(s, end, i);
        if (open >= end || s[open] != '{') return open;
        size_t close = adi_block_close(s, end, open);
        if (close >= end) return end;
        size_t j = adi_skip_space(s, end, close + 1);
        if (!adi_is_else(s, end, j)) return close + 1;
        j = adi_skip_space(s, end, j + 4);
        if (j < end && s[j] == '{') {
            close = adi_block_close(s, end, j);
            return close >= end ? end : close + 1;
        }
        if (j >= end || keyword_at(s, end, j) != AD_STMT_IF) return j;
        i = j;
    }
}

/* the close that matches the open before s[k] (in s[k..e)), or e */
static size_t closing(const char *s, size_t e, size_t k, char open, char close)
{
    for (int d = 1; k < e; k++) {
        if (s[k] == open) d++;
        else if (s[k] == close && --d == 0) break;
    }
    return k;
}

int ad_next_stmt(const char *s, size_t len, size_t *pos, int *line, int *col, ad_stmt *st)
{
    size_t i = *pos;
    if (i >= len) return 0;
    memset(st, 0, sizeof *st);
    {
        /* a statement of control flow: to the end of its last block */
        size_t k = i;
        int kl = *line, kc = *col;
        skip_space(s, len, &k, &kl, &kc);
        ad_stmt_kind kind = k < len ? keyword_at(s, len, k) : AD_STMT_EMPTY;
        if (kind == AD_STMT_IF && !if_is_statement(s, len, k)) kind = AD_STMT_EMPTY;
        if (kind != AD_STMT_EMPTY) {
            size_t e = kind == AD_STMT_ELSE ? k + 4 : control_end(s, len, k);
            st->kind = kind;
            st->off = k;
            st->len = e - k;
            st->line = kl;
            st->col = kc;
            while (k < e) step(s, &k, &kl, &kc);
            *pos = e;
            *line = kl;
            *col = kc;
            return 1;
        }
    }
    st->off = i;
    st->line = *line;
    st->col = *col;
    int depth = 0;
    char last = 0;   /* the last byte of the last token */
    size_t end = len, next = len;
    int l = *line, c = *col;
    while (i < len) {
        char ch = s[i];
        if (ch == '#') {
            while (i < len && s[i] != '\n') step(s, &i, &l, &c);
            continue;
        }
        if (ch == ';' && depth <= 0) { end = i; next = i + 1; break; }
        if (ch == '\n' && depth <= 0 && (idchar((unsigned char)last) || last == '.' || last == ')' || last == ']')) {
            end = i;
            next = i + 1;
            break;
        }
        if (ch == '(' || ch == '[') depth++;
        else if (ch == ')' || ch == ']') depth--;
        if (!isspace((unsigned char)ch)) last = ch;
        step(s, &i, &l, &c);
    }
    st->len = end - st->off;
    /* the position after the separator */
    if (next > end) step(s, &i, &l, &c);
    *pos = next;
    *line = l;
    *col = c;

    /* what kind of statement: look at its first tokens */
    size_t j = st->off, e = end;
    int jl = st->line, jc = st->col;
    skip_space(s, e, &j, &jl, &jc);
    if (j >= e) { st->kind = AD_STMT_EMPTY; return 1; }
    /* the statement starts at its first token, past blanks and comments */
    st->len -= j - st->off;
    st->off = j;
    st->line = jl;
    st->col = jc;
    st->kind = AD_STMT_EXPR;
    if (!idstart((unsigned char)s[j])) return 1;
    size_t name = j;
    while (j < e && idchar((unsigned char)s[j])) step(s, &j, &jl, &jc);
    size_t name_len = j - name;
    skip_space(s, e, &j, &jl, &jc);
    st->index_len = 0;
    if (j < e && s[j] == '=' && (j + 1 >= e || s[j + 1] != '=')) {
        st->kind = AD_STMT_ASSIGN;
    } else if (j < e && s[j] == '[' && j == name + name_len) {
        /* v[i] = ...: an element's assignment; v[i] alone an expression */
        size_t k = closing(s, e, j + 1, '[', ']');
        if (k >= e) return 1;
        int kl = jl, kc = jc;
        size_t q = j;
        step(s, &q, &kl, &kc);   /* past the '[' */
        int il = kl, ic = kc;
        for (; q <= k;) step(s, &q, &kl, &kc);
        skip_space(s, e, &q, &kl, &kc);
        if (!(q < e && s[q] == '=' && (q + 1 >= e || s[q + 1] != '='))) return 1;
        st->kind = AD_STMT_ASSIGN;
        st->index_off = j + 1;
        st->index_len = k - (j + 1);
        st->index_line = il;
        st->index_col = ic;
        j = q;
        jl = kl;
        jc = kc;
    } else if (j < e && s[j] == '(') {
        /* f(...) = ... is a definition; f(...) alone a call */
        size_t popen = j + 1, k = closing(s, e, j + 1, '(', ')');
        if (k >= e) return 1;
        size_t close = k;
        int kl = jl, kc = jc;
        for (k = j; k <= close;) step(s, &k, &kl, &kc);
        skip_space(s, e, &k, &kl, &kc);
        if (!(k < e && s[k] == '=' && (k + 1 >= e || s[k + 1] != '='))) return 1;
        st->kind = AD_STMT_DEF;
        st->params_off = popen;
        st->params_len = close - popen;
        j = k;
        jl = kl;
        jc = kc;
    } else {
        return 1;
    }
    st->name_off = name;
    st->name_len = name_len;
    step(s, &j, &jl, &jc);   /* the '=' */
    st->rhs_off = j;
    st->rhs_line = jl;
    st->rhs_col = jc;
    return 1;
}

/* ---- recording ---- */

static ad_errclass perr(ad_diag *d, ad_errclass cls, int line, int col, const char *fmt,
                        const char *name, size_t len)
{
    char q[80];
    snprintf(q, sizeof q, "%.*s%s", (int)(len > 60 ? 60 : len), name, len > 60 ? "..." : "");
    return ad_diag_set(d, cls, line, col, fmt, q);
}

/* what a name already means, for a clash; NULL when it is free */
static const char *taken(const adi_prog *g, const char *name, size_t len)
{
    int r = ad_reserved(name, len);
    if (r) return r == AD_RESERVED_CONSTANT ? "a constant" : r == AD_RESERVED_KEYWORD ? "a keyword" : "a built-in function";
    if (g->nfn && adi_symtab_get(&g->funcs, name, len) >= 0) return "a function";
    return NULL;
}

static void free_params(adi_ufunc *f)
{
    free(f->param_off);
    free(f->param_len);
    f->param_off = f->param_len = NULL;
}

/* the parameters of definition st (names separated by commas, blanks,
 * line ends and comments around them) into f; on an error f has none */
static ad_errclass params(const adi_prog *g, const ad_stmt *st, adi_ufunc *f, ad_diag *d)
{
    const char *s = g->src, *name = s + st->name_off;
    size_t nl = st->name_len, i = st->params_off, end = st->params_off + st->params_len;
    ad_errclass e = AD_E_NONE;
    while (!e && i <= end) {
        size_t at = st->off;
        int al = st->line, ac = st->col, pl, pc;
        skip_space(s, end, &i, &al, &ac);
        size_t b = i;
        /* where the parameter starts, for errors */
        for (pl = st->line, pc = st->col; at < b;) step(s, &at, &pl, &pc);
        while (i < end && idchar((unsigned char)s[i])) i++;
        size_t plen = i - b;
        skip_space(s, end, &i, &al, &ac);
        if (plen == 0 && f->nparams == 0 && i == end) break;   /* f() = ... */
        if (plen == 0 || !idstart((unsigned char)s[b]) || (i < end && s[i] != ',')) {
            e = perr(d, AD_E_SYNTAX, pl, pc, "the parameters of '%s' must be names separated by commas", name, nl);
            break;
        }
        if (taken(g, s + b, plen)) {
            e = perr(d, AD_E_NAME, pl, pc, "parameter '%s' is a reserved name", s + b, plen);
            break;
        }
        for (size_t k = 0; !e && k < f->nparams; k++)
            if (f->param_len[k] == plen && !memcmp(s + f->param_off[k], s + b, plen))
                e = perr(d, AD_E_NAME, pl, pc, "parameter '%s' given twice", s + b, plen);
        if (e) break;
        size_t *no = adi_realloc(f->param_off, (f->nparams + 1) * sizeof *no);
        if (no) f->param_off = no;
        size_t *nn = no ? adi_realloc(f->param_len, (f->nparams + 1) * sizeof *nn) : NULL;
        if (!no || !nn) {
            e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
            break;
        }
        f->param_len = nn;
        f->param_off[f->nparams] = b;
        f->param_len[f->nparams++] = plen;
        i++;   /* the ',' */
    }
    if (e) free_params(f);
    return e;
}

/* records f's body once, its parameters bound to stand-in constants: its
 * nodes feed no output and are dropped when the tape is finished */
static ad_errclass check_body(ad_tape *t, adi_prog *g, const adi_ufunc *f, ad_diag *d)
{
    const char *s = g->src;
    adi_param *ps = adi_malloc((f->nparams ? f->nparams : 1) * sizeof *ps);
    if (!ps) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    ad_errclass e = AD_E_NONE;
    for (size_t k = 0; !e && k < f->nparams; k++) {
        ps[k].name = s + f->param_off[k];
        ps[k].len = f->param_len[k];
        ps[k].node = adi_rec_const(t, 1, "1", 1, f->body_line, f->body_col);
        if (ps[k].node < 0) e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    }
    if (!e && (f->body_len == 0 || strspn(s + f->body_off, " \t\r\n") >= f->body_len)) {
        e = perr(d, AD_E_SYNTAX, f->body_line, f->body_col, "the body of '%s' is empty", s + f->name_off, f->name_len);
    } else if (!e) {
        g->checking++;
        adi_parse_span(t, g, f->body_off, f->body_len, f->body_line, f->body_col, ps, f->nparams, 1, d, &e);
        g->checking--;
    }
    free(ps);
    return e;
}

static ad_errclass define(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d)
{
    const char *name = g->src + st->name_off;
    size_t nl = st->name_len;
    const char *what = taken(g, name, nl);
    if (what && strcmp(what, "a function") != 0)
        return perr(d, AD_E_NAME, st->line, st->col, "cannot define '%s': the name is taken by a built-in", name, nl);
    if (adi_symtab_get(&g->bindings, name, nl) >= 0)
        return perr(d, AD_E_NAME, st->line, st->col, "cannot define function '%s': it is a variable", name, nl);
    adi_ufunc f;
    memset(&f, 0, sizeof f);
    f.name_off = st->name_off;
    f.name_len = nl;
    ad_errclass e = params(g, st, &f, d);
    if (e) return e;
    f.body_off = st->rhs_off;
    f.body_len = st->off + st->len - st->rhs_off;
    f.body_line = st->rhs_line;
    f.body_col = st->rhs_col;
    f.defining = 1;   /* a call of f in its own body is recursion */
    if (adi_grow((void **)&g->fn, &g->fncap, g->nfn + 1, sizeof *g->fn) < 0) {
        free_params(&f);
        return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    }
    size_t idx = g->nfn++;
    g->fn[idx] = f;
    int32_t prev = adi_symtab_get(&g->funcs, name, nl);   /* a redefinition replaces it */
    if (adi_symtab_set(&g->funcs, name, nl, (int32_t)idx) < 0) e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    if (!e) e = check_body(t, g, &f, d);
    g->fn[idx].defining = 0;
    if (!e) return AD_E_NONE;
    /* a definition that failed leaves no trace (a session goes on after it) */
    if (prev >= 0) adi_symtab_set(&g->funcs, name, nl, prev);   /* the key is there: no memory needed */
    else adi_symtab_forget(&g->funcs, name, nl);
    g->nfn--;
    free_params(&f);
    return e;
}

void adi_prog_init(adi_prog *g, const char *src, size_t len)
{
    memset(g, 0, sizeof *g);
    g->src = src;
    g->len = len;
    adi_symtab_init(&g->bindings);
    adi_symtab_init(&g->funcs);
}

void adi_prog_free(adi_prog *g)
{
    for (size_t i = 0; i < g->nfn; i++) {
        free(g->fn[i].param_off);
        free(g->fn[i].param_len);
    }
    free(g->fn);
    free(g->undo);
    free(g->loopvar);
    adi_prog_scanner_free(g);
    adi_memo_free(g);
    adi_vec_free(g);
    adi_symtab_free(&g->bindings);
    adi_symtab_free(&g->funcs);
}

ad_errclass adi_prog_stmt(ad_tape *t, adi_prog *g, const ad_stmt *st, int32_t *root, ad_diag *d)
{
    const char *src = g->src;
    ad_errclass e = AD_E_NONE;
    *root = -1;
    switch (st->kind) {
    case AD_STMT_EMPTY:
        return AD_E_NONE;
    case AD_STMT_IF:
    case AD_STMT_WHILE:
    case AD_STMT_FOR:
    case AD_STMT_ELSE:
        return adi_flow_stmt(t, g, st, d);
    case AD_STMT_DEF:
        if (g->blockdepth)
            return perr(d, AD_E_SYNTAX, st->line, st->col, "function '%s' is defined inside a block: define it outside",
                        src + st->name_off, st->name_len);
        return define(t, g, st, d);
    case AD_STMT_ASSIGN: {
        const char *name = src + st->name_off;
        /* a name bound already was found free when it was first assigned
         * (and a function cannot take a variable's name): a loop's
         * assignments skip the look-up among the built-ins */
        const char *what = adi_symtab_get(&g->bindings, name, st->name_len) >= 0 ? NULL : taken(g, name, st->name_len);
        if (what) {
            char fmt[80];
            snprintf(fmt, sizeof fmt, "cannot assign to '%%s': it is %s", what);
            return perr(d, AD_E_NAME, st->line, st->col, fmt, name, st->name_len);
        }
        for (size_t k = 0; k < g->nloopvar; k++)
            if (g->loopvar[k].len == st->name_len && !memcmp(src + g->loopvar[k].off, name, st->name_len)) {
                char fmt[120];
                snprintf(fmt, sizeof fmt, "cannot assign to '%%s': it is the variable of the 'for' at %d:%d",
                         g->loopvar[k].line, g->loopvar[k].col);
                return perr(d, AD_E_NAME, st->line, st->col, fmt, name, st->name_len);
            }
        size_t rl = st->off + st->len - st->rhs_off;
        if (strspn(src + st->rhs_off, " \t\r\n") >= rl)
            return perr(d, AD_E_SYNTAX, st->rhs_line, st->rhs_col, "nothing to assign to '%s'", name, st->name_len);
        *root = adi_parse_span(t, g, st->rhs_off, rl, st->rhs_line, st->rhs_col, NULL, 0, 0, d, &e);
        if (!e && st->index_len) e = adi_vec_assign(t, g, st, root, d);
        return e;
    }
    case AD_STMT_EXPR:
        *root = adi_parse_span(t, g, st->off, st->len, st->line, st->col, NULL, 0, 0, d, &e);
        return e;
    }
    return AD_E_NONE;
}

int adi_prog_bind(adi_prog *g, const ad_stmt *st, int32_t node)
{
    const char *name = g->src + st->name_off;
    int32_t prev = adi_symtab_get(&g->bindings, name, st->name_len);
    if (g->skip || g->journal) {
        if (adi_grow((void **)&g->undo, &g->undocap, g->nundo + 1, sizeof *g->undo) < 0) return -1;
        g->undo[g->nundo++] = (adi_undo){st->name_off, st->name_len, prev, 0};
    }
    adi_vec_bound(g, node, prev);
    return adi_symtab_set(&g->bindings, name, st->name_len, node);
}

int adi_prog_note_element(adi_prog *g, int32_t h, size_t k)
{
    if (adi_grow((void **)&g->undo, &g->undocap, g->nundo + 1, sizeof *g->undo) < 0) return -1;
    g->undo[g->nundo++] = (adi_undo){k, 0, adi_vec_el(g, h)[k], h};
    return 0;
}

void adi_prog_undo(adi_prog *g, size_t mark)
{
    while (g->nundo > mark) {
        const adi_undo *u = &g->undo[--g->nundo];
        if (u->vec) {
            adi_vec_el(g, u->vec)[u->off] = u->prev;
            continue;
        }
        /* the key is there: setting it needs no memory */
        if (u->prev >= 0) adi_symtab_set(&g->bindings, g->src + u->off, u->len, u->prev);
        else adi_symtab_forget(&g->bindings, g->src + u->off, u->len);
    }
}

/* binds assignment st's name to node, and notes it as the node's name on
 * a tape that keeps names (not in a part not taken: its nodes are dropped,
 * but a name bound to an earlier node would stay); 0 or -1 */
static int bind(ad_tape *t, adi_prog *g, const ad_stmt *st, int32_t node)
{
    if (adi_prog_bind(g, st, node) < 0) return -1;
    /* (a vector's elements keep no name) */
    return g->skip || adi_is_vec(node) ? 0 : adi_tape_name(t, node, g->src + st->name_off, st->name_len, "");
}

/* one statement of a block */
static ad_errclass block_stmt(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d)
{
    if (st->kind == AD_STMT_EXPR)
        return ad_diag_set(d, AD_E_SYNTAX, st->line, st->col,
                           "this expression's value is unused: a block holds assignments and control flow");
    int32_t r;
    ad_errclass e = adi_prog_stmt(t, g, st, &r, d);
    if (!e && st->kind == AD_STMT_ASSIGN && bind(t, g, st, r) < 0)
        e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    return e;
}

ad_errclass adi_prog_block(ad_tape *t, adi_prog *g, size_t off, size_t end, int line, int col, ad_diag *d)
{
    ad_errclass e = AD_E_NONE;
    if (g->inloop) {
        /* a loop's block runs many times: split it once */
        const ad_stmt *sts;
        size_t n;
        if (adi_memo_stmts(g, off, end, line, col, &sts, &n) < 0) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        for (size_t i = 0; !e && i < n; i++) e = block_stmt(t, g, &sts[i], d);
        return e;
    }
    ad_stmt st;
    while (!e && ad_next_stmt(g->src, end, &off, &line, &col, &st))
        if (st.kind != AD_STMT_EMPTY) e = block_stmt(t, g, &st, d);
    return e;
}

static ad_errclass parse_program(ad_tape *t, const char *src, size_t len, ad_diag *d)
{
    adi_prog g;
    adi_prog_init(&g, src, len);
    char top;
    g.stack_top = (uintptr_t)&top;
    ad_errclass e = AD_E_NONE;
    int32_t out = -1;
    size_t pos = 0;
    int line = t->first_line, col = 1, out_line = line, out_col = 1, any = 0;
    ad_stmt st;
    while (!e && ad_next_stmt(src, len, &pos, &line, &col, &st)) {
        if (st.kind == AD_STMT_EMPTY) continue;
        any = 1;
        if (st.kind == AD_STMT_EXPR && out >= 0) {
            /* an expression whose value nothing uses is a mistake: most
             * often an expression broken across lines before an operator */
            e = ad_diag_set(d, AD_E_SYNTAX, out_line, out_col,
                            "this expression's value is unused: only the last expression is the "
                            "output (to continue it on the next line, end the line with an operator)");
            break;
        }
        int32_t r;
        e = adi_prog_stmt(t, &g, &st, &r, d);
        if (e) break;
        if (st.kind == AD_STMT_ASSIGN && bind(t, &g, &st, r) < 0)
            e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
        if (st.kind == AD_STMT_EXPR) {
            out = r;
            out_line = st.line;
            out_col = st.col;
        }
    }
    if (!e && !any) e = ad_diag_set(d, AD_E_SYNTAX, 1, 1, "empty expression");
    if (!e && out < 0)
        e = ad_diag_set(d, AD_E_SYNTAX, line, col, "no expression to evaluate: the last statement is not an expression");
    /* a vector's elements are the source's outputs */
    if (!e) e = adi_vec_value(&g, out, out_line, out_col, d);
    if (!e && (adi_is_vec(out) ? adi_tape_add_source(t, adi_vec_el(&g, out), adi_vec_len(&g, out), 1)
                               : adi_tape_add_source(t, &out, 1, 0)) < 0)
        e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory while recording");
    adi_prog_free(&g);
    return e;
}

/* a tape with guards keeps its sources, to be recorded again at the
 * points where a guard does not hold (path.c) */
static int keep_sources(ad_tape *t, const char *const *srcs, const size_t *lens, size_t m)
{
    size_t total = 0;
    for (size_t i = 0; i < m; i++) total += lens[i];
    adi_flowsrc *f = adi_calloc(1, sizeof *f);
    if (f) {
        f->text = adi_malloc(total);
        f->len = adi_calloc(m, sizeof *f->len);
    }
    if (!f || !f->text || !f->len) {
        adi_flow_free(f);
        return -1;
    }
    for (size_t i = 0, off = 0; i < m; off += lens[i++]) {
        memcpy(f->text + off, srcs[i], lens[i]);
        f->len[i] = lens[i];
    }
    f->n = m;
    t->flow = f;
    return 0;
}

ad_errclass ad_parse_many(ad_tape *t, const char *const *srcs, const size_t *lens, size_t m,
                          size_t *failed, ad_diag *d)
{
    ad_tape_reset(t);
    for (size_t i = 0; i < m; i++) {
        t->cursrc = (int32_t)i;
        ad_errclass e = parse_program(t, srcs[i], lens[i], d);
        if (e) {
            int pathless = t->undecided && !t->at && e != AD_E_IO;
            if (failed) *failed = i;
            ad_tape_reset(t);
            t->pathless = pathless;
            return e;
        }
    }
    /* the sources, for the points on other paths (not for path.c's and
     * a session's recordings at a point: their plans or sessions keep them) */
    int own = !t->at || t->at == &t->point;
    if (adi_tape_finish(t) < 0 || (t->nguards && own && keep_sources(t, srcs, lens, m) < 0)) {
        if (failed) *failed = 0;
        ad_tape_reset(t);
        return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory while recording");
    }
    return AD_E_NONE;
}

ad_errclass ad_parse(ad_tape *t, const char *src, size_t len, ad_diag *d)
{
    return ad_parse_many(t, &src, &len, 1, NULL, d);
}
