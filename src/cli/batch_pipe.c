/* batch_pipe.c - chunks through threads: with -j N, up to N threads each
 * read the next chunk, compute it with their own workspace on the one
 * shared read-only tape and plan, and write it when the chunks before it
 * are written, so reading and writing overlap the computing and the
 * output is in input order, the same for every N.  A thread starts the
 * next one (which sets up its own workspace) only once it has taken a
 * chunk and input remains, so a small input costs one thread whatever N
 * is.  Also the progress line. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "batch.h"
#include "report.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* writes a computed chunk: its rows to stdout, its errors to stderr */
static void write_chunk(cli_batch_writer *W, cli_batch_chunk *c)
{
    const cli_options *o = W->P->o;
    if (c->out.nomem) {
        /* rows that could not be formatted whole: none of them is written */
        cli_error(o, NULL, AD_E_IO, "out of memory");
        W->status = cli_exit_code(AD_E_IO);
        W->stop = 1;
        return;
    }
    /* flushed here, so that the errno of a failed write is this thread's */
    errno = 0;
    if (cli_buf_write(&c->out, stdout) < 0) {
        W->write_err = errno ? errno : EIO;
        W->stop = 1;
    }
    for (size_t q = 0; q < c->nerr; q++) {
        const cli_batch_err *r = &c->err[q];
        cli_error(o, &(cli_where){.file = W->P->name, .line = r->line, .col = r->col, .row = o->binary}, r->cls, "%s",
                  r->msg);
        if (!W->status || r->cls == AD_E_IO) W->status = cli_exit_code(r->cls);   /* out of memory wins */
    }
    W->rows_done += (long)c->rows;
    for (int v = 0; v < CLI_VERDICTS; v++) {
        if (c->failed[v] && !W->failed[v]) W->first_failed[v] = c->first_failed[v];
        W->failed[v] += (long)c->failed[v];
    }
    if (c->stopped || ferror(stdout)) W->stop = 1;
    if (c->read_err && !W->stop) {
        /* the input ended in a failed read: an error, never its end */
        cli_error(o, NULL, AD_E_IO, "cannot read '%s': %s", W->P->name, strerror(c->read_err));
        W->status = cli_exit_code(AD_E_IO);
        W->stop = 1;
    }
    if (W->progress && W->rows_done - W->last_report >= 100000) {
        double secs = now() - W->t0;
        fprintf(stderr, "\radcalc: %ld rows, %.0f rows/s ", W->rows_done, secs > 0 ? (double)W->rows_done / secs : 0);
        W->last_report = W->rows_done;
    }
}

/* -j 1: read, compute, write, chunk after chunk; 1 when out of memory */
static int run_serial(cli_batch_reader *R, cli_batch_writer *W, cli_batch_chunk *c)
{
    if (!c->P && cli_batch_chunk_init(c, W->P) < 0) return 1;
    while (!R->eof && !W->stop) {
        if (cli_batch_read_chunk(R, c) < 0) return 1;
        cli_batch_run_chunk(c);
        write_chunk(W, c);
    }
    return 0;
}

/* what the threads share */
typedef struct {
    cli_batch_reader *R;
    cli_batch_writer *W;
    cli_batch_chunk *ch;          /* one per thread, set up by the thread itself */
    size_t nthreads, started;
    pthread_t *tid;
    struct worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t turn;
    long nread, nwritten;
    int nomem;
} pipeline;

typedef struct worker {
    pipeline *pl;
    size_t k;                 /* which thread */
} worker;

static void *work(void *arg);

/* another thread, when input remains and -j allows one: threads start as
 * the input proves long enough to need them (called with mu held) */
static void start_next(pipeline *pl, worker *self)
{
    if (pl->R->eof || pl->started >= pl->nthreads || self->k + 1 != pl->started) return;
    worker *next = &pl->workers[pl->started];
    *next = (worker){pl, pl->started};
    if (pthread_create(&pl->tid[pl->started], NULL, work, next) == 0) pl->started++;
}

static void *work(void *arg)
{
    worker *self = arg;
    pipeline *pl = self->pl;
    cli_batch_chunk *c = &pl->ch[self->k];
    int ready = c->P != NULL || cli_batch_chunk_init(c, pl->W->P) == 0;
    for (;;) {
        pthread_mutex_lock(&pl->mu);
        if (!ready) pl->nomem = 1;
        if (pl->R->eof || pl->W->stop || pl->nomem) {
            pthread_mutex_unlock(&pl->mu);
            break;
        }
        long seq = pl->nread++;
        int bad = cli_batch_read_chunk(pl->R, c) < 0;
        if (bad) {
            pl->nomem = 1;
            pl->R->eof = 1;
        }
        start_next(pl, self);
        pthread_mutex_unlock(&pl->mu);
        if (!bad) cli_batch_run_chunk(c);
        pthread_mutex_lock(&pl->mu);
        while (pl->nwritten != seq) pthread_cond_wait(&pl->turn, &pl->mu);
        if (!bad && !pl->W->stop && !pl->nomem) write_chunk(pl->W, c);
        pl->nwritten++;
        pthread_cond_broadcast(&pl->turn);
        pthread_mutex_unlock(&pl->mu);
    }
    return NULL;
}

static int run_threads(cli_batch_reader *R, cli_batch_writer *W, cli_batch_chunk *ch, size_t nthreads)
{
    pipeline pl = {R, W, ch, nthreads, 1, NULL, NULL, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};
    pl.tid = malloc(nthreads * sizeof *pl.tid);
    pl.workers = malloc(nthreads * sizeof *pl.workers);
    if (!pl.tid || !pl.workers) {
        free(pl.tid);
        free(pl.workers);
        return 1;
    }
    worker first = {&pl, 0};
    work(&first);
    pthread_mutex_lock(&pl.mu);
    size_t started = pl.started;   /* no thread starts another once this one is done */
    pthread_mutex_unlock(&pl.mu);
    for (size_t k = 1; k < started; k++) pthread_join(pl.tid[k], NULL);
    free(pl.tid);
    free(pl.workers);
    pthread_cond_destroy(&pl.turn);
    pthread_mutex_destroy(&pl.mu);
    return pl.nomem;
}

int cli_batch_pipe(cli_batch_reader *R, cli_batch_writer *W, cli_batch_chunk *ch, size_t nthreads)
{
    W->t0 = now();
    int nomem = nthreads > 1 ? run_threads(R, W, ch, nthreads) : run_serial(R, W, ch);
    if (W->progress && W->last_report) fputs("\r\033[K", stderr);
    return nomem;
}
