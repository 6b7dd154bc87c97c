/* cli_batch_pipe.c - chunks through threads: with -j N, N threads each read
 * the next chunk, compute it with their own workspace on the one shared
 * read-only tape and plan, and write it when the chunks before it are
 * written, so reading and writing overlap the computing and the output is
 * in input order, the same for every N.  Also the progress line. */
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
static void write_chunk(batch_writer *W, batch_chunk *c)
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
    if (cli_buf_flush(&c->out, stdout) < 0 || fflush(stdout) != 0) {
        W->write_err = errno ? errno : EIO;
        W->stop = 1;
    }
    for (size_t q = 0; q < c->nerr; q++) {
        const batch_err *r = &c->err[q];
        cli_error(o, &(cli_where){.file = W->P->name, .line = r->line, .row = o->binary}, r->cls, "%s", r->msg);
        if (!W->status || r->cls == AD_E_IO) W->status = cli_exit_code(r->cls);   /* out of memory wins */
    }
    W->rows_done += (long)c->rows;
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
static int run_serial(batch_reader *R, batch_writer *W, batch_chunk *c)
{
    while (!R->eof && !W->stop) {
        if (cli_batch_read_chunk(R, c) < 0) return 1;
        cli_batch_run_chunk(c);
        write_chunk(W, c);
    }
    return 0;
}

/* what the threads share, and each one's chunk */
typedef struct {
    batch_reader *R;
    batch_writer *W;
    batch_chunk *c;
    pthread_mutex_t *mu;
    pthread_cond_t *turn;
    long *nread, *nwritten;
    int *nomem;
} worker;

static void *work(void *arg)
{
    worker *pw = arg;
    for (;;) {
        pthread_mutex_lock(pw->mu);
        if (pw->R->eof || pw->W->stop || *pw->nomem) {
            pthread_mutex_unlock(pw->mu);
            break;
        }
        long seq = (*pw->nread)++;
        int bad = cli_batch_read_chunk(pw->R, pw->c) < 0;
        if (bad) {
            *pw->nomem = 1;
            pw->R->eof = 1;
        }
        pthread_mutex_unlock(pw->mu);
        if (!bad) cli_batch_run_chunk(pw->c);
        pthread_mutex_lock(pw->mu);
        while (*pw->nwritten != seq) pthread_cond_wait(pw->turn, pw->mu);
        if (!bad && !pw->W->stop && !*pw->nomem) write_chunk(pw->W, pw->c);
        (*pw->nwritten)++;
        pthread_cond_broadcast(pw->turn);
        pthread_mutex_unlock(pw->mu);
    }
    return NULL;
}

static int run_threads(batch_reader *R, batch_writer *W, batch_chunk *ch, size_t nthreads)
{
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
    long nread = 0, nwritten = 0;
    int nomem = 0;
    worker *pw = malloc(nthreads * sizeof *pw);
    pthread_t *tid = malloc(nthreads * sizeof *tid);
    if (!pw || !tid) {
        free(pw);
        free(tid);
        return 1;
    }
    for (size_t k = 0; k < nthreads; k++) pw[k] = (worker){R, W, &ch[k], &mu, &turn, &nread, &nwritten, &nomem};
    size_t started = 1;
    for (size_t k = 1; k < nthreads; k++) {
        if (pthread_create(&tid[k], NULL, work, &pw[k]) != 0) break;   /* fewer threads */
        started++;
    }
    work(&pw[0]);
    for (size_t k = 1; k < started; k++) pthread_join(tid[k], NULL);
    free(pw);
    free(tid);
    pthread_cond_destroy(&turn);
    pthread_mutex_destroy(&mu);
    return nomem;
}

int cli_batch_pipe(batch_reader *R, batch_writer *W, batch_chunk *ch, size_t nthreads)
{
    W->t0 = now();
    int nomem = nthreads > 1 ? run_threads(R, W, ch, nthreads) : run_serial(R, W, ch);
    if (W->progress && W->last_report) fputs("\r\033[K", stderr);
    return nomem;
}
