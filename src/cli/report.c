/* report.c - the one diagnostic printer (report.h).  A diagnostic is
 * composed whole in a buffer and written with one call, so the lines of
 * two threads never mix. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "report.h"
#include "buf.h"
#include "libs.h"

int cli_exit_code(ad_errclass cls)
{
    switch (cls) {
    case AD_E_NONE: return 0;
    case AD_E_DOMAIN: return 1;
    case AD_E_USAGE: return 2;
    case AD_E_SYNTAX:
    case AD_E_NAME: return 3;
    case AD_E_NONDIFF: return 4;
    case AD_E_IO: return 5;
    case AD_E_PATH: return 5;   /* never reaches the command: ad_derive records the path */
    }
    return 5;
}

const char *cli_message(const ad_diag *d, char *buf, size_t n)
{
    const char *hint = d->hint == AD_HINT_POLICY_ZERO      ? " (--nondiff zero-subgrad takes it as 0)"
                       : d->hint == AD_HINT_POLICY_SUBGRAD ? " (--nondiff zero-subgrad takes a zero subgradient)"
                       : d->hint == AD_HINT_POLICY_TIE     ? " (--nondiff zero-subgrad takes the branch the values choose)"
                       : d->hint == AD_HINT_TAPE_LIMIT     ? " (--max-nodes N raises the limit)"
                       : d->hint == AD_HINT_ITER_LIMIT     ? " (--max-iterations N raises the limit)"
                       : d->hint == AD_HINT_UNBOUND        ? " (give it with -at, or as a column of the points)"
                                                           : "";
    snprintf(buf, n, "%s%s", d->msg, hint);
    return buf;
}

/* a name as one line: control bytes shown as '?' */
static void put_name(cli_buf *b, const char *s)
{
    for (; *s; s++) cli_buf_putc(b, (unsigned char)*s < 32 || *s == 127 ? '?' : *s);
}

/* the source line holding the error, cut to a window around the column,
 * then a caret under the column */
static void echo(cli_buf *b, const char *src, size_t srclen, int line, int col)
{
    const char *p = src, *end = src + srclen;
    for (int l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        p = nl + 1;
    }
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    size_t len = (size_t)(eol - p), c = col > 0 ? (size_t)col - 1 : 0, from = 0;
    const size_t width = 72;
    if (c > width - 20) from = c - (width - 20);
    size_t to = from + width < len ? from + width : len;
    cli_buf_puts(b, "  ");
    if (from) cli_buf_puts(b, "...");
    for (size_t i = from; i < to; i++) {
        unsigned char ch = (unsigned char)p[i];
        cli_buf_putc(b, ch < 32 || ch >= 127 ? (ch == '\t' ? ' ' : '?') : (char)ch);
    }
    if (to < len) cli_buf_puts(b, "...");
    cli_buf_puts(b, "\n  ");
    for (size_t i = (from ? from - 3 : 0); i < c; i++) cli_buf_putc(b, ' ');
    cli_buf_puts(b, "^\n");
}

/* the source and line d's position is in, as the user numbers them (a
 * library's line for the prelude of --lib; a REPL statement within its
 * input line, or shifted by the lines before it), and the line of s->src
 * to show */
static const cli_source *position(const cli_source *s, const ad_diag *d, long *line, int *col, int *shown)
{
    const cli_source *at = cli_prelude_locate(s, d->line, shown);
    *line = *shown + at->line_shift;
    *col = d->col + (at->echo && *shown == at->echo_at ? at->col_shift : 0);
    return at;
}

void cli_json_error(cli_buf *b, const cli_where *at, const ad_diag *d, const char *msg)
{
    const char *tag = ad_err_tag(d->cls);
    cli_buf_puts(b, "{\"tag\": ");
    cli_buf_json_string(b, tag, strlen(tag));
    cli_buf_puts(b, ", \"message\": ");
    cli_buf_json_string(b, msg, strlen(msg));
    if (at && at->src && d->line != 0) {
        long line;
        int col, shown;
        const cli_source *s = position(at->src, d, &line, &col, &shown);
        cli_buf_puts(b, ", \"source\": ");
        cli_buf_json_string(b, s->name, strlen(s->name));
        cli_buf_printf(b, ", \"line\": %ld, \"column\": %d", line, col);
    } else if (at && at->file) {
        cli_buf_puts(b, ", \"source\": ");
        cli_buf_json_string(b, at->file, strlen(at->file));
        if (at->line > 0) cli_buf_printf(b, ", \"%s\": %ld", at->row ? "row" : "line", at->line);
        if (at->line > 0 && at->col > 0) cli_buf_printf(b, ", \"column\": %ld", at->col);
    }
    cli_buf_putc(b, '}');
}

static void json(cli_buf *b, const cli_where *at, const ad_diag *d, const char *msg)
{
    cli_buf_puts(b, "{\"error\": ");
    cli_json_error(b, at, d, msg);
    cli_buf_puts(b, "}\n");
}

static void text(cli_buf *b, const cli_where *at, const ad_diag *d, const char *msg)
{
    const char *tag = ad_err_tag(d->cls);
    cli_buf_puts(b, "adcalc: ");
    if (at && at->src && d->line != 0) {
        long line;
        int col, shown;
        const cli_source *s = position(at->src, d, &line, &col, &shown);
        put_name(b, s->name);
        cli_buf_printf(b, ":%ld:%d: error: %s [%s]\n", line, col, msg, tag);
        if (s->echo && shown == s->echo_at)   /* a statement within an input line: that line */
            echo(b, s->echo, s->echo_len, 1, col);
        else
            echo(b, s->src, s->len, shown, d->col);
        return;
    }
    if (at && at->file) {
        put_name(b, at->file);
        if (at->line > 0) cli_buf_printf(b, ":%s%ld", at->row ? "row " : "", at->line);
        if (at->line > 0 && at->col > 0) cli_buf_printf(b, ":%ld", at->col);
        cli_buf_puts(b, ": ");
    }
    if (d->cls == AD_E_USAGE && !(at && (at->session || at->file)))
        cli_buf_printf(b, "error: %s; see 'adcalc --help' [%s]\n", msg, tag);
    else
        cli_buf_printf(b, "error: %s [%s]\n", msg, tag);
}

/* prints the diagnostic of class and position d with message msg */
static void report(const cli_options *o, const cli_where *at, const ad_diag *d, const char *msg)
{
    char storage[4096];
    cli_buf b;
    cli_buf_lend(&b, storage, sizeof storage);
    if (o && o->format == CLI_FMT_JSON) json(&b, at, d, msg);
    else text(&b, at, d, msg);
    if (b.nomem) {
        /* no room even for the message: say so, the one way left */
        fprintf(stderr, "adcalc: error: %s [%s]\n", msg, ad_err_tag(d->cls));
    } else {
        fwrite(b.p, 1, b.len, stderr);
    }
    cli_buf_free(&b);
}

void cli_report(const cli_options *o, const cli_where *at, const ad_diag *d)
{
    char msg[600];
    report(o, at, d, cli_message(d, msg, sizeof msg));
}

void cli_error(const cli_options *o, const cli_where *at, ad_errclass cls, const char *fmt, ...)
{
    ad_diag d;
    memset(&d, 0, sizeof d);
    d.cls = cls;
    char msg[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    report(o, at, &d, msg);
}
