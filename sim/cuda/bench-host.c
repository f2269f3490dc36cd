/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench, host side: command line, size sweep, timing reductions,
 * CSV rows and reference results, with no CUDA in sight so that all of it
 * is unit-tested without a GPU (tests/cuda/test-bench-host.c).
 *
 * Options, size sweep and bandwidths follow nccl-tests (src/common.cu):
 * sizes min, min × factor, ... <= max rounded down to whole elements per
 * rank; algbw = bytes / time, busbw = algbw × the factor of
 * coll_busbw_factor. Times are microseconds, bandwidths bytes per second
 * in code and GB/s (10^9 bytes) in the CSV, as collectives.csv has them.
 */
#include "cuda/bench-host.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-units.h"
#include "core/core-csv.h"

/* The options as text, parsed after GOption has split the line. */
typedef struct BenchOptionText {
    char *op, *min, *max, *factor, *gpus, *ranks, *iters, *warmup, *csv, *system, *dtype;
    gboolean check;
} BenchOptionText;

static void
option_text_clear(BenchOptionText *t)
{
    char **fields[] = {&t->op,    &t->min,    &t->max, &t->factor, &t->gpus, &t->ranks,
                       &t->iters, &t->warmup, &t->csv, &t->system, &t->dtype};
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
        g_clear_pointer(fields[i], g_free);
}

/* The entries each subcommand takes; a flag not listed is GOption's
 * "Unknown option" error. */
static void
add_entries(GOptionContext *context, BenchMode mode, BenchOptionText *t)
{
    const GOptionEntry sweep[] = {
        {"minbytes", 'b', 0, G_OPTION_ARG_STRING, &t->min, "Smallest size (default 32M)", "SIZE"},
        {"maxbytes", 'e', 0, G_OPTION_ARG_STRING, &t->max, "Largest size (default 32M)", "SIZE"},
        {"stepfactor", 'f', 0, G_OPTION_ARG_STRING, &t->factor, "Size factor, >= 2 (default 2)",
         "N"},
        G_OPTION_ENTRY_NULL,
    };
    const GOptionEntry common[] = {
        {"iters", 'n', 0, G_OPTION_ARG_STRING, &t->iters, "Timed iterations (default 20)", "K"},
        {"csv", 0, 0, G_OPTION_ARG_FILENAME, &t->csv, "Write rows here (default: stdout)", "FILE"},
        G_OPTION_ENTRY_NULL,
    };
    const GOptionEntry coll[] = {
        {"op", 0, 0, G_OPTION_ARG_STRING, &t->op, "Collective (all_reduce, all_gather ...)", "OP"},
        {"gpus", 'g', 0, G_OPTION_ARG_STRING, &t->gpus, "GPUs (default: all visible)", "N"},
        {"warmup", 'w', 0, G_OPTION_ARG_STRING, &t->warmup, "Warm-up iterations (default 5)", "W"},
        {"check", 'c', 0, G_OPTION_ARG_NONE, &t->check, "Check results (float only)", NULL},
        {"system", 0, 0, G_OPTION_ARG_STRING, &t->system, "nvlsim's id of this system", "NAME"},
        {"datatype", 'd', 0, G_OPTION_ARG_STRING, &t->dtype, "Data type (default float)", "T"},
        G_OPTION_ENTRY_NULL,
    };
    const GOptionEntry loopback[] = {
        {"ranks", 0, 0, G_OPTION_ARG_STRING, &t->ranks, "Ranks on the one GPU, >= 2 each",
         "K[,K...]"},
        {"op", 0, 0, G_OPTION_ARG_STRING, &t->op, "all_reduce (default) or all_gather", "OP"},
        {"system", 0, 0, G_OPTION_ARG_STRING, &t->system,
         "nvlsim's id of the model (default loopback-GPU)", "NAME"},
        G_OPTION_ENTRY_NULL,
    };
    g_option_context_add_main_entries(context, common, NULL);
    if (mode == BENCH_MODE_COLL || mode == BENCH_MODE_LOOPBACK)
        g_option_context_add_main_entries(context, sweep, NULL);
    if (mode == BENCH_MODE_COLL)
        g_option_context_add_main_entries(context, coll, NULL);
    if (mode == BENCH_MODE_LOOPBACK)
        g_option_context_add_main_entries(context, loopback, NULL);
}

static bool bad_value(GError **error, const char *option, const char *format, ...)
    G_GNUC_PRINTF(3, 4);

static bool
bad_value(GError **error, const char *option, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *what = g_strdup_vprintf(format, args);
    va_end(args);
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s", option, what);
    return false;
}

/* A size as nccl-tests writes it: digits with an optional K, M, G or T
 * (powers of 1024), else nvlsim's units ("4MiB", "1GB"). */
static bool
parse_size(const char *option, const char *text, uint64_t *out, GError **error)
{
    static const char suffixes[] = "KMGT";
    size_t len = strlen(text);
    g_autofree char *unit_text = NULL;
    const char *s = len > 0 ? strchr(suffixes, g_ascii_toupper(text[len - 1])) : NULL;
    if (s != NULL && *s != '\0' && len > 1 && g_ascii_isdigit(text[len - 2]))
        unit_text = g_strdup_printf("%.*s%ciB", (int)len - 1, text, *s);
    else if (len > 0 && g_ascii_isdigit(text[len - 1]))
        unit_text = g_strdup_printf("%sB", text);
    else
        unit_text = g_strdup(text);
    g_autoptr(GError) local = NULL;
    if (!sim_units_parse_size_bytes(unit_text, out, &local))
        return bad_value(error, option, "'%s' is not a size (bytes, or 8K, 128M, 1G): %s", text,
                         local->message);
    return true;
}

/* A whole number >= min into a uint32_t. */
static bool
parse_u32(const char *option, const char *text, uint32_t min, uint32_t *out, GError **error)
{
    uint64_t n;
    if (!sim_units_parse_count(text, &n, NULL) || n < min || n > UINT32_MAX)
        return bad_value(error, option, "'%s': expected a whole number of at least %u", text, min);
    *out = (uint32_t)n;
    return true;
}

static bool
parse_sweep(const BenchOptionText *t, BenchArgs *out, GError **error)
{
    if (t->min != NULL && !parse_size("-b/--minbytes", t->min, &out->min_bytes, error))
        return false;
    if (t->max != NULL && !parse_size("-e/--maxbytes", t->max, &out->max_bytes, error))
        return false;
    if (out->min_bytes == 0)
        return bad_value(error, "-b/--minbytes", "must be at least 1 byte");
    if (out->max_bytes < out->min_bytes)
        return bad_value(error, "-e/--maxbytes",
                         "%" G_GUINT64_FORMAT " is below -b/--minbytes (%" G_GUINT64_FORMAT ")",
                         out->max_bytes, out->min_bytes);
    uint64_t factor = out->step_factor;
    if (t->factor != NULL && (!sim_units_parse_count(t->factor, &factor, NULL) || factor < 2))
        return bad_value(error, "-f/--stepfactor", "'%s': expected a whole number of at least 2",
                         t->factor);
    out->step_factor = factor;
    return true;
}

static bool
parse_coll(const BenchOptionText *t, BenchArgs *out, GError **error)
{
    if (t->op == NULL)
        return bad_value(error, "--op",
                         "missing: name the collective (all_reduce, all_gather, "
                         "reduce_scatter, broadcast, reduce, alltoall, sendrecv)");
    if (!coll_op_parse(t->op, &out->op))
        return bad_value(error, "--op", "'%s' is not a collective", t->op);
    if (t->gpus != NULL && !parse_u32("-g/--gpus", t->gpus, 1, &out->n_gpus, error))
        return false;
    if (t->warmup != NULL && !parse_u32("-w/--warmup", t->warmup, 0, &out->n_warmup, error))
        return false;
    if (t->dtype != NULL) {
        out->dtype_bytes = coll_dtype_bytes(t->dtype);
        if (out->dtype_bytes == 0)
            return bad_value(error, "-d/--datatype", "'%s' is not a data type of nccl-tests",
                             t->dtype);
        g_free(out->dtype);
        out->dtype = g_ascii_strdown(t->dtype, -1);
    }
    out->check = t->check;
    if (out->check && strcmp(out->dtype, "float") != 0)
        return bad_value(error, "-c/--check", "checks float results only, not %s", out->dtype);
    if (out->check && out->op != COLL_OP_ALL_REDUCE && out->op != COLL_OP_ALL_GATHER &&
        out->op != COLL_OP_REDUCE_SCATTER)
        return bad_value(error, "-c/--check",
                         "checks all_reduce, all_gather and reduce_scatter only, not %s",
                         coll_op_name(out->op));
    out->system = g_strdup(t->system);
    return true;
}

/* --ranks 2,4,8 and the kernel's two collectives. */
static bool
parse_loopback(const BenchOptionText *t, BenchArgs *out, GError **error)
{
    if (t->ranks == NULL)
        return bad_value(error, "--ranks", "missing: how many ranks share the GPU (>= 2)");
    g_auto(GStrv) items = g_strsplit(t->ranks, ",", -1);
    for (char **item = items; *item != NULL; item++) {
        if (out->n_rank_counts == BENCH_MAX_RANK_COUNTS)
            return bad_value(error, "--ranks", "'%s': at most %d counts", t->ranks,
                             BENCH_MAX_RANK_COUNTS);
        if (!parse_u32("--ranks", g_strstrip(*item), 2, &out->rank_counts[out->n_rank_counts++],
                       error))
            return false;
    }
    out->op = COLL_OP_ALL_REDUCE;
    if (t->op != NULL && (!coll_op_parse(t->op, &out->op) ||
                          (out->op != COLL_OP_ALL_REDUCE && out->op != COLL_OP_ALL_GATHER)))
        return bad_value(error, "--op", "'%s': the loopback kernel runs all_reduce or all_gather",
                         t->op);
    out->system = g_strdup(t->system);
    return true;
}

/* The values of the options, checked; defaults are nccl-tests'. */
static bool
parse_values(const BenchOptionText *t, BenchArgs *out, GError **error)
{
    if (t->iters != NULL && !parse_u32("-n/--iters", t->iters, 1, &out->n_iters, error))
        return false;
    out->csv_path = g_strdup(t->csv);
    bool sweeps = out->mode == BENCH_MODE_COLL || out->mode == BENCH_MODE_LOOPBACK;
    if (sweeps && !parse_sweep(t, out, error))
        return false;
    if (out->mode == BENCH_MODE_COLL)
        return parse_coll(t, out, error);
    if (out->mode == BENCH_MODE_LOOPBACK)
        return parse_loopback(t, out, error);
    return true;
}

static bool
parse_mode(const char *word, BenchMode *mode, GError **error)
{
    /* BenchMode's order */
    static const char *const names[] = {"coll", "gpu", "loopback", "interfere"};
    for (size_t i = 0; word != NULL && i < G_N_ELEMENTS(names); i++) {
        if (strcmp(word, names[i]) == 0) {
            *mode = (BenchMode)i;
            return true;
        }
    }
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                "%s%s%s: expected a subcommand: coll, gpu, loopback or interfere", word ? "'" : "",
                word ? word : "no subcommand", word ? "'" : "");
    return false;
}

bool
bench_parse_args(int argc, char **argv, BenchArgs *out, GError **error)
{
    *out = (BenchArgs){
        .min_bytes = 32u << 20,
        .max_bytes = 32u << 20,
        .step_factor = 2,
        .n_iters = 20,
        .n_warmup = 5,
        .dtype = g_strdup("float"),
        .dtype_bytes = 4,
    };
    if (!parse_mode(argc > 1 ? argv[1] : NULL, &out->mode, error)) {
        bench_args_clear(out);
        return false;
    }
    /* GOption removes what it parses from the vector: give it a copy,
     * starting at the subcommand so that it stands in for the program name. */
    g_auto(GStrv) copy = g_new0(char *, argc);
    for (int i = 1; i < argc; i++)
        copy[i - 1] = g_strdup(argv[i]);
    BenchOptionText text = {0};
    GOptionContext *context = g_option_context_new(NULL);
    add_entries(context, out->mode, &text);
    bool ok = g_option_context_parse_strv(context, &copy, error);
    g_option_context_free(context);
    if (!ok)
        g_prefix_error(error, "%s: ", argv[1]); /* GOption's "Unknown option -x" */
    if (ok && copy[0] != NULL && copy[1] != NULL)
        ok = bad_value(error, argv[1], "unexpected argument '%s'", copy[1]);
    ok = ok && parse_values(&text, out, error);
    option_text_clear(&text);
    if (!ok)
        bench_args_clear(out);
    return ok;
}

void
bench_args_clear(BenchArgs *args)
{
    g_free(args->csv_path);
    g_free(args->system);
    g_free(args->dtype);
    *args = (BenchArgs){0};
}

GArray *
bench_sizes(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, uint64_t unit_bytes)
{
    g_return_val_if_fail(factor >= 2 && unit_bytes >= 1 && min_bytes >= 1, NULL);
    GArray *sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (uint64_t size = min_bytes; size <= max_bytes;) {
        uint64_t rounded = size / unit_bytes * unit_bytes;
        if (rounded > 0)
            g_array_append_val(sizes, rounded);
        if (size > max_bytes / factor)
            break; /* the next one is past max (or past 2^64) */
        size *= factor;
    }
    return sizes;
}

uint64_t
bench_size_unit_bytes(CollOp op, uint32_t n_ranks, uint32_t elem_bytes)
{
    bool per_rank =
        op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER || op == COLL_OP_ALLTOALL;
    return (uint64_t)elem_bytes * (per_rank ? n_ranks : 1);
}

uint64_t
bench_loopback_unit_bytes(CollOp op, uint32_t n_ranks)
{
    return op == COLL_OP_ALL_GATHER ? 16 * (uint64_t)n_ranks : sizeof(float);
}

char *
bench_loopback_system_id(const char *gpu_name)
{
    g_auto(GStrv) words = g_strsplit_set(gpu_name, " \t", -1);
    const char *model = "";
    for (char **w = words; *w != NULL; w++)
        if (**w != '\0' && g_ascii_strcasecmp(*w, "NVIDIA") != 0) {
            model = *w;
            break;
        }
    g_autofree char *lower = g_ascii_strdown(model, -1);
    return g_strconcat("loopback-", lower, NULL);
}

static int
compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double
bench_median_us(const double *samples_us, guint n)
{
    g_return_val_if_fail(samples_us != NULL && n > 0, NAN);
    g_autofree double *sorted = g_memdup2(samples_us, n * sizeof *samples_us);
    qsort(sorted, n, sizeof *sorted, compare_doubles);
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

double
bench_algbw_bytes_per_s(uint64_t n_bytes, double time_us)
{
    return (double)n_bytes / (time_us * 1e-6);
}

double
bench_busbw_bytes_per_s(CollOp op, uint32_t n_ranks, uint64_t n_bytes, double time_us)
{
    return bench_algbw_bytes_per_s(n_bytes, time_us) * coll_busbw_factor(op, n_ranks);
}

const char *
bench_csv_header(void)
{
    return "system,nvlsim_system,gpu,generation,nvlink_gen,num_gpus,nodes,collective,algorithm,"
           "protocol,dtype,bytes,time_us,algbw_gbps,busbw_gbps,in_place,nccl_version,source_url,"
           "source_note,harness,launch_mode,cuda_graph";
}

static void
put_number(SimCsvWriter *w, const char *format, double value)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    sim_csv_put(w, g_ascii_formatd(buf, sizeof buf, format, value));
}

/* source_url: where the row comes from; source_note: what has no column. */
static void
put_source(SimCsvWriter *w, const BenchRow *row)
{
    g_autofree char *source =
        g_strdup_printf("nvlsim-bench %s on %s, %s", row->bench_version ? row->bench_version : "",
                        row->gpu ? row->gpu : "", row->date ? row->date : "");
    sim_csv_put(w, source);
    g_autoptr(GString) note = g_string_new(NULL);
    const char *labels[] = {"driver ", "CUDA ", ""};
    const char *parts[] = {row->driver_version, row->cuda_version, row->note};
    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
        if (parts[i] == NULL || *parts[i] == '\0')
            continue;
        g_string_append_printf(note, "%s%s%s", note->len ? "; " : "", labels[i], parts[i]);
    }
    sim_csv_put(w, note->str);
}

static void
put_row(SimCsvWriter *w, const BenchRow *row)
{
    sim_csv_put(w, row->system);
    sim_csv_put(w, row->nvlsim_system);
    sim_csv_put(w, row->gpu);
    sim_csv_put(w, row->generation);
    sim_csv_put(w, row->nvlink_gen);
    sim_csv_put_plain(w, "%u,%u", row->n_gpus, row->n_nodes);
    sim_csv_put(w, row->collective);
    sim_csv_put(w, row->algorithm); /* NULL: NCCL's choice */
    sim_csv_put(w, row->protocol);
    sim_csv_put(w, row->dtype);
    sim_csv_put_plain(w, "%" G_GUINT64_FORMAT, row->n_bytes);
    put_number(w, "%.3f", row->time_us);
    put_number(w, "%.3f", row->algbw_bytes_per_s / 1e9);
    put_number(w, "%.3f", row->busbw_bytes_per_s / 1e9);
    sim_csv_put_plain(w, "%d", row->in_place ? 1 : 0);
    sim_csv_put(w, row->nccl_version);
    put_source(w, row);
    /* One process drives every GPU through NCCL group calls, timed as
     * nccl-tests times them (bench-coll.cu). */
    sim_csv_put_plain(w, "nccl-tests,threads,0");
    sim_csv_end_row(w);
}

bool
bench_csv_write(FILE *out, const BenchRow *rows, guint n, GError **error)
{
    g_autoptr(GString) text = g_string_new(NULL);
    SimCsvWriter w = {.text = text};
    sim_csv_put_plain(&w, "%s", bench_csv_header());
    sim_csv_end_row(&w);
    for (guint i = 0; i < n; i++)
        put_row(&w, &rows[i]);
    if (fwrite(text->str, 1, text->len, out) != text->len || fflush(out) != 0) {
        int saved = errno;
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "writing the CSV rows: %s",
                    g_strerror(saved));
        return false;
    }
    return true;
}

float
bench_input_value(uint32_t rank, size_t i)
{
    return (float)((rank + 1) * ((i % 97) + 1));
}

void
bench_input_fill(float *buf, uint32_t rank, size_t count)
{
    for (size_t i = 0; i < count; i++)
        buf[i] = bench_input_value(rank, i);
}

void
bench_expected_allreduce(float *out, uint32_t n_ranks, size_t count)
{
    /* sum over r of (r + 1) × v = v × n(n + 1)/2: exact, as the sum is. */
    uint64_t rank_sum = (uint64_t)n_ranks * ((uint64_t)n_ranks + 1) / 2;
    for (size_t i = 0; i < count; i++)
        out[i] = (float)(rank_sum * ((i % 97) + 1));
}

void
bench_expected_allgather(float *out, uint32_t n_ranks, size_t count_per_rank)
{
    for (uint32_t r = 0; r < n_ranks; r++)
        bench_input_fill(out + (size_t)r * count_per_rank, r, count_per_rank);
}

void
bench_expected_reduce_scatter(float *out, uint32_t n_ranks, uint32_t rank, size_t count_per_rank)
{
    uint64_t rank_sum = (uint64_t)n_ranks * ((uint64_t)n_ranks + 1) / 2;
    size_t first = (size_t)rank * count_per_rank;
    for (size_t i = 0; i < count_per_rank; i++)
        out[i] = (float)(rank_sum * (((first + i) % 97) + 1));
}

bool
bench_check_floats(const float *got, const float *want, size_t n, double rel_tol, size_t *first_bad)
{
    size_t i = 0;
    for (; i < n; i++) {
        double g = got[i], w = want[i];
        if (isnan(g) || !(fabs(g - w) <= rel_tol * fabs(w)))
            break;
    }
    if (first_bad != NULL)
        *first_bad = i;
    return i == n;
}
