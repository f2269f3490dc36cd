/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim sweep past one machine: under mpirun (built with Open MPI), the
 * points a folder lacks are dealt round-robin to the ranks; each rank
 * simulates its share on its own thread pool, and rank 0, which alone
 * holds the output folder, journals every row (its own, and those the
 * others send it) and writes results.csv. The rows are the bytes a single
 * process writes: the same CSV whatever the ranks and threads. Every rank
 * exits with rank 0's status.
 */
#include "config.h"

#include "cli/cli-sweep.h"
#include "cli/cli.h"

#ifdef HAVE_MPI

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_ROW = 1 };

bool
cli_sweep_mpi_launched(void)
{
    const char *size = g_getenv("OMPI_COMM_WORLD_SIZE");
    return size != NULL && atoi(size) > 1;
}

/* What a rank's workers share with its main thread. */
typedef struct MpiRun {
    const CliSweep *sweep;
    CliSweepOut *out;  /* rank 0 only */
    GAsyncQueue *rows; /* other ranks: rows for the main thread to send */
    GMutex lock;
    GError *error; /* rank 0: the first failure to journal a row */
} MpiRun;

static void
mpi_point(gpointer data, gpointer user_data)
{
    MpiRun *run = user_data;
    uint32_t index = GPOINTER_TO_UINT(data) - 1;
    char *row = cli_sweep_point_row(run->sweep, index);
    if (run->rows != NULL) {
        g_async_queue_push(run->rows, row);
        return;
    }
    GError *error = NULL;
    cli_sweep_out_put(run->out, index, row, &error);
    g_free(row);
    g_mutex_lock(&run->lock);
    if (error != NULL && run->error == NULL)
        run->error = g_steal_pointer(&error);
    g_mutex_unlock(&run->lock);
    g_clear_error(&error);
}

/* The point a row is for: its first field. */
static uint32_t
row_index(const char *row)
{
    return (uint32_t)strtoul(row, NULL, 10);
}

int
cli_sweep_mpi(const char *path, const char *dir, int jobs)
{
    int provided, rank, size;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    GError *error = NULL;
    g_autoptr(CliSweep) sweep = cli_sweep_load(path, &error);
    g_autoptr(CliSweepOut) out =
        rank == 0 && sweep != NULL ? cli_sweep_out_open(dir, sweep, &error) : NULL;
    /* Rank 0 says whether the run goes on, and which points are done. */
    int go = sweep != NULL && (rank != 0 || out != NULL);
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go || sweep == NULL) {
        if (error != NULL && rank == 0)
            cli_print_error("sweep", error);
        g_clear_error(&error);
        MPI_Finalize();
        return CLI_EXIT_BAD_INPUT;
    }
    uint32_t n = sweep->n_points;
    g_autofree unsigned char *done = g_new0(unsigned char, n);
    for (uint32_t i = 0; rank == 0 && i < n; i++)
        done[i] = cli_sweep_out_has(out, i);
    MPI_Bcast(done, (int)n, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD);
    MpiRun run = {.sweep = sweep, .out = out};
    g_mutex_init(&run.lock);
    if (rank != 0)
        run.rows = g_async_queue_new();
    gint64 t0 = g_get_monotonic_time();
    GThreadPool *pool = g_thread_pool_new(mpi_point, &run, jobs, FALSE, NULL);
    uint32_t n_missing = 0, n_mine = 0, n_remote = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        if ((int)(n_missing++ % (uint32_t)size) == rank) {
            g_thread_pool_push(pool, GUINT_TO_POINTER(i + 1), NULL);
            n_mine++;
        } else {
            n_remote++;
        }
    }
    if (rank != 0) {
        for (uint32_t k = 0; k < n_mine; k++) {
            char *row = g_async_queue_pop(run.rows);
            MPI_Send(row, (int)strlen(row) + 1, MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD);
            g_free(row);
        }
    } else {
        for (uint32_t got = 0; got < n_remote;) {
            int flag = 0;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &flag, &st);
            if (!flag) {
                g_usleep(1000);
                continue;
            }
            int len;
            MPI_Get_count(&st, MPI_CHAR, &len);
            g_autofree char *row = g_malloc(MAX(len, 1));
            MPI_Recv(row, len, MPI_CHAR, st.MPI_SOURCE, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            GError *put_error = NULL;
            cli_sweep_out_put(out, row_index(row), row, &put_error);
            g_mutex_lock(&run.lock);
            if (put_error != NULL && run.error == NULL)
                run.error = g_steal_pointer(&put_error);
            g_mutex_unlock(&run.lock);
            g_clear_error(&put_error);
            got++;
        }
    }
    g_thread_pool_free(pool, FALSE, TRUE);
    int status = CLI_EXIT_OK;
    if (rank == 0) {
        g_autofree char *header = cli_sweep_header(sweep);
        uint32_t n_ok = 0;
        if (run.error != NULL) {
            g_propagate_error(&error, run.error);
            run.error = NULL;
        }
        if (error != NULL || !cli_sweep_out_finish(out, header, &n_ok, &error)) {
            cli_print_error("sweep", error);
            g_clear_error(&error);
            status = CLI_EXIT_BAD_INPUT;
        } else {
            double wall_s = (double)(g_get_monotonic_time() - t0) / 1e6;
            printf("%s: %u points, %u ok, %u invalid; %u simulated now in %.2f s on %d MPI "
                   "ranks of %d thread%s, %u from an earlier run\n",
                   cli_sweep_out_results_path(out), n, n_ok, n - n_ok, n_missing, wall_s, size, jobs,
                   jobs == 1 ? "" : "s", n - n_missing);
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (run.rows != NULL)
        g_async_queue_unref(run.rows);
    g_mutex_clear(&run.lock);
    MPI_Finalize();
    return status;
}

#else

bool
cli_sweep_mpi_launched(void)
{
    return false;
}

int
cli_sweep_mpi(const char *path, const char *dir, int jobs)
{
    (void)path;
    (void)dir;
    (void)jobs;
    g_return_val_if_reached(CLI_EXIT_USAGE);
}

#endif
