/* SPDX-License-Identifier: Apache-2.0 */
/* validate's training rows: the schema of shared/reference/training.csv
 * (recognised by its iteration_time_s column). Each row becomes a
 * scenario (work-scenario.h) whose step is simulated and compared with the
 * row's iteration time.
 *
 * What a row gives, each in a column of its own (free text, notes and
 * source, is never searched): system, model (its name, parameter count
 * and, when given, layers, hidden size and heads pick the model file),
 * sequence length, global and micro batch, tp, pp, dp (or GPUs / (tp cp
 * pp)), cp, vp, fsdp, precision, recompute (none, selective, full) and
 * stack, the software that ran it. Blank fields take Megatron's own
 * defaults, each stated beside the row and counted with the results:
 * micro_batch 1, cp 1, vp 1, fsdp 0, recompute none. A row without a
 * precision or a stack is skipped with the reason. What each stack did,
 * and the rows do not repeat (facts of the code, the same for every row
 * of a stack):
 *   megatron-lm, 2019-2021 (SC21 Table 1, the V1.0 blog; megatron-lm-2019
 *     the V1.0 code, before pipeline parallelism, which had no microbatches:
 *     a replica ran its share of the global batch at once): gradients
 *     all-reduced after the last backward (its local DDP), no distributed
 *     optimizer, no sequence parallelism, attention unfused; its GPT-2
 *     example scripts recompute activations (--checkpoint-activations,
 *     examples/pretrain_gpt2.sh), so the V1.0 rows say recompute full;
 *   nemo (NeMo 24.07), and megatron-core (r0.8.0's H100 scaling table, its README:
 *     --overlap-grad-reduce --overlap-param-gather --tp-comm-overlap):
 *     Megatron-Core with the distributed optimizer (ZeRO 1),
 *     gradient reduction overlapped, sequence parallelism with tp > 1 and
 *     its collectives overlapped with their GEMMs by Transformer Engine's
 *     userbuffers (NeMo-Framework-Launcher's performance configurations,
 *     conf/training/gpt3/175b_fp8_performance.yaml: ub_tp_comm_overlap:
 *     True; Megatron-Bridge's, in a NeMo container too:
 *     CommOverlapConfig(tp_comm_overlap=True), which it gates on tp >= 2
 *     and sequence parallelism), fused attention, no recomputation unless
 *     the row says; CP=n is
 *     Megatron-Core's context parallelism (ring attention), dp then
 *     GPUs / (tp cp pp);
 *   megatron-bridge: Megatron-Bridge's performance configurations reduce gradients in
 *     bf16 (scripts/performance/utils/precision.py, get_precision_config:
 *     grad_reduce_in_fp32 = False), and its fp8 recipes keep and gather
 *     the parameters in fp8 (src/megatron/bridge/training/
 *     mixed_precision.py: fp8_param_gather = True in bf16_with_fp8_
 *     delayed_scaling_mixed, _current_scaling_mixed and bf16_with_mxfp8_
 *     mixed; False in bf16_with_nvfp4_mixed): grad_bytes 2, param_bytes 1;
 *   the loss: NeMo's recipes fuse the cross entropy (Megatron-Bridge's
 *     performance configurations: cross_entropy_loss_fusion = True,
 *     Transformer Engine's kernel; NeMo 24.07's taken as the same), where
 *     Megatron-LM and Megatron-Core through r0.8 run their unfused
 *     vocab-parallel cross entropy unless --cross-entropy-loss-fusion is
 *     given, which the rows of neither say.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-rows.h"
#include "cli/cli-run.h"
#include "cli/cli-validate-train.h"
#include "cli/cli-validate.h"
#include "cli/cli.h"
#include "core/core-time.h"
#include "hw/hw-models.h"

bool
validate_is_training(const SimCsv *csv)
{
    return sim_csv_column(csv, "iteration_time_s") >= 0;
}

bool
train_columns_find(const SimCsv *csv, TrainColumns *col, GError **error)
{
    static const char *const names[] = {
        "source", "nvlsim_system", "model",           "params_b",    "layers", "hidden",
        "heads",  "seq_len",       "global_batch",    "micro_batch", "tp",     "pp",
        "dp",     "num_gpus",      "iteration_time_s"};
    int *out[] = {&col->source, &col->system, &col->model,   &col->params_b,     &col->layers,
                  &col->hidden, &col->heads,  &col->seq_len, &col->global_batch, &col->micro_batch,
                  &col->tp,     &col->pp,     &col->dp,      &col->num_gpus,     &col->time};
    col->precision = sim_csv_column(csv, "precision");
    col->cp = sim_csv_column(csv, "cp");
    col->vp = sim_csv_column(csv, "vp");
    col->fsdp = sim_csv_column(csv, "fsdp");
    col->recompute = sim_csv_column(csv, "recompute");
    col->stack = sim_csv_column(csv, "stack");
    col->nodes = sim_csv_column(csv, "nodes");
    col->domains = sim_csv_column(csv, "domains");
    for (unsigned i = 0; i < G_N_ELEMENTS(names); i++) {
        *out[i] = sim_csv_column(csv, names[i]);
        if (*out[i] < 0) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: no column %s (training rows need the columns of "
                        "data/measurements/training.csv)",
                        csv->path, names[i]);
            return false;
        }
    }
    return true;
}

/* A whole number in a field; 0 when empty; false (reported) when not. */
static bool
count(Validation *v, const SimCsv *csv, guint r, int c, const char *name, uint64_t *out)
{
    const char *text = sim_csv_field(csv, r, c);
    *out = 0;
    if (*text == '\0')
        return true;
    char *end;
    guint64 n = g_ascii_strtoull(text, &end, 10);
    if (*end != '\0' || n > (1u << 24)) {
        validate_bad(v, csv, r, name, "'%s' is not a whole number", text);
        return false;
    }
    *out = n;
    return true;
}

/* An optional column's whole number: false (reported) when malformed;
 * *out untouched when the column is absent or the field empty. */
static bool
count_column(Validation *v, const SimCsv *csv, guint r, int c, const char *name, uint64_t *out)
{
    if (c < 0 || *sim_csv_field(csv, r, c) == '\0')
        return true;
    return count(v, csv, r, c, name, out);
}

/* The precision column: the scenario's math (bf16, fp16, fp8, mxfp8,
 * nvfp4); *math untouched when absent or empty. */
static bool
precision_column(Validation *v, const SimCsv *csv, guint r, int c, const char **math)
{
    static const char *const names[] = {"bf16", "fp16", "fp8", "fp8-cs", "mxfp8", "nvfp4"};
    const char *text = c >= 0 ? sim_csv_field(csv, r, c) : "";
    if (*text == '\0')
        return true;
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (strcmp(text, names[i]) == 0) {
            *math = names[i];
            return true;
        }
    validate_bad(v, csv, r, "precision", "'%s': expected bf16, fp16, fp8, fp8-cs, mxfp8 or nvfp4",
                 text);
    return false;
}

static void
model_free(gpointer m)
{
    work_model_free(m);
}

/* A word column: the index of its field in names, -1 when the column is
 * absent or the field blank, -2 (reported) when it is none of them. */
static int
word_column(Validation *v, const SimCsv *csv, guint r, int c, const char *column,
            const char *const *names, size_t n, const char *expect)
{
    const char *text = c >= 0 ? sim_csv_field(csv, r, c) : "";
    if (*text == '\0')
        return -1;
    for (size_t i = 0; i < n; i++)
        if (strcmp(text, names[i]) == 0)
            return (int)i;
    validate_bad(v, csv, r, column, "'%s': expected %s", text, expect);
    return -2;
}

/* What each stack ran (the comment at the top). */
typedef enum TrainStack {
    STACK_MEGATRON_LM_2019,
    STACK_MEGATRON_LM,
    STACK_MEGATRON_CORE,
    STACK_NEMO,
    STACK_MEGATRON_BRIDGE,
} TrainStack;

static const char *const stack_names[] = {"megatron-lm-2019", "megatron-lm", "megatron-core",
                                          "nemo", "megatron-bridge"};
static const char *const recompute_names[] = {"none", "selective", "full"};

/* Notes a default a row took: counted with the results and listed beside
 * the row. */
static void
take_default(Validation *v, GString *stated, const char *field, const char *value, const char *why)
{
    g_autofree char *text = g_strdup_printf("%s blank: %s, %s", field, value, why);
    validate_default(v, text);
    g_string_append_printf(stated, "%s%s %s", stated->len ? ", " : "", field, value);
}

/* The shipped models, loaded once. */
static GPtrArray *
models(Validation *v)
{
    if (v->models != NULL)
        return v->models;
    g_autoptr(GPtrArray) ids = hw_models_ids(hw_models_dir(), "llm", NULL);
    v->models = g_ptr_array_new_with_free_func(model_free);
    v->model_ids = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; ids != NULL && i < ids->len; i++) {
        WorkModel *m = work_model_load_by_id(ids->pdata[i], NULL, NULL);
        if (m == NULL)
            continue;
        g_ptr_array_add(v->models, m);
        g_ptr_array_add(v->model_ids, g_strdup(ids->pdata[i]));
    }
    return v->models;
}

/* The layers of the shipped model file id. */
static uint64_t
model_layers(Validation *v, const char *id)
{
    GPtrArray *list = models(v);
    for (guint i = 0; i < list->len; i++)
        if (strcmp(v->model_ids->pdata[i], id) == 0)
            return ((const WorkModel *)list->pdata[i])->n_layers;
    return 0;
}

/* The model file a row means: the same family (the row name's first word,
 * letters and digits: "GPT", "GPT3", "LLAMA2", "Nemotron", in the file's id
 * or name), the shape when the row gives it, and the parameter count
 * nearest the row's (within 10%). */
static const char *
match_model(Validation *v, const char *name, double params_b, uint64_t layers, uint64_t hidden,
            uint64_t heads)
{
    g_autofree char *lower = g_ascii_strdown(name, -1);
    size_t n = 0;
    while (g_ascii_isalnum(lower[n]))
        n++;
    g_autofree char *family = g_strndup(lower, n);
    GPtrArray *list = models(v);
    const char *best = NULL;
    double best_err = 0.10;
    for (guint i = 0; n > 0 && i < list->len; i++) {
        const WorkModel *m = list->pdata[i];
        const char *id = v->model_ids->pdata[i];
        g_autofree char *model_name = g_ascii_strdown(m->name, -1);
        if (strstr(id, family) == NULL && strstr(model_name, family) == NULL)
            continue;
        if ((layers && m->n_layers != layers) || (hidden && m->hidden_size != hidden) ||
            (heads && m->n_heads != heads))
            continue;
        double err = fabs((double)work_model_params(m) / 1e9 - params_b) / params_b;
        if (err <= best_err) {
            best_err = err;
            best = id;
        }
    }
    return best;
}

/* The source's short name: up to its first comma, quote or parenthesis. */
static char *
source_name(const char *source)
{
    size_t n = strcspn(source, ",'(:");
    char *s = g_strndup(source, n);
    return g_strstrip(s);
}

void
train_row_clear(TrainRow *row)
{
    g_free(row->ini);
    g_free(row->where);
    g_free(row->detail);
    g_free(row->source);
    g_free(row->stated);
}

/* Row r as a scenario; false when it is skipped (counted) or malformed
 * (reported). */
bool
train_row_scenario(Validation *v, const SimCsv *csv, const TrainColumns *col, guint r,
                   TrainRow *row)
{
    const char *system = sim_csv_field(csv, r, col->system);
    const char *source = sim_csv_field(csv, r, col->source);
    const char *time_text = sim_csv_field(csv, r, col->time);
    if (v->only_system != NULL && strcmp(system, v->only_system) != 0)
        return false;
    if (*system == '\0') {
        validate_skip(v, "no nvlsim_system named");
        return false;
    }
    if (*time_text == '\0') {
        validate_skip(v, "no iteration time (a throughput figure only)");
        return false;
    }
    double measured, params_b;
    GError *error = NULL;
    if (!cli_rows_measure(csv, r, col->time, "iteration_time_s", &measured, &error) ||
        !cli_rows_number(csv, r, col->params_b, "params_b", &params_b, &error)) {
        validate_bad_error(v, error);
        g_error_free(error);
        return false;
    }
    uint64_t layers, hidden, heads, seq_len, gb, mb, tp, pp, dp, gpus;
    if (!count(v, csv, r, col->layers, "layers", &layers) ||
        !count(v, csv, r, col->hidden, "hidden", &hidden) ||
        !count(v, csv, r, col->heads, "heads", &heads) ||
        !count(v, csv, r, col->seq_len, "seq_len", &seq_len) ||
        !count(v, csv, r, col->global_batch, "global_batch", &gb) ||
        !count(v, csv, r, col->micro_batch, "micro_batch", &mb) ||
        !count(v, csv, r, col->tp, "tp", &tp) || !count(v, csv, r, col->pp, "pp", &pp) ||
        !count(v, csv, r, col->dp, "dp", &dp) ||
        !count(v, csv, r, col->num_gpus, "num_gpus", &gpus))
        return false;
    uint64_t cp = 0, fsdp = 0, vp = 0;
    const char *math = NULL;
    uint64_t nodes = 0, domains = 0;
    /* domains: a count, or the hosts of each domain ("18+18+18+10"), which
     * the scenario checks */
    const char *domain_list = sim_csv_field(csv, r, col->domains);
    bool listed = domain_list != NULL && strpbrk(domain_list, ",+") != NULL &&
                  domain_list[strspn(domain_list, "0123456789,+ ")] == '\0';
    int stack = word_column(v, csv, r, col->stack, "stack", stack_names, G_N_ELEMENTS(stack_names),
                            "megatron-lm-2019, megatron-lm, megatron-core, nemo or "
                            "megatron-bridge");
    int recompute = word_column(v, csv, r, col->recompute, "recompute", recompute_names,
                                G_N_ELEMENTS(recompute_names), "none, selective or full");
    if (stack == -2 || recompute == -2 || !count_column(v, csv, r, col->cp, "cp", &cp) ||
        !count_column(v, csv, r, col->vp, "vp", &vp) ||
        !count_column(v, csv, r, col->fsdp, "fsdp", &fsdp) ||
        !count_column(v, csv, r, col->nodes, "nodes", &nodes) ||
        (!listed && !count_column(v, csv, r, col->domains, "domains", &domains)) ||
        !precision_column(v, csv, r, col->precision, &math))
        return false;
    if (cp == 0 && col->cp >= 0 && *sim_csv_field(csv, r, col->cp) != '\0') {
        validate_bad(v, csv, r, "cp", "0: expected 1 or more");
        return false;
    }
    if (fsdp > 1) {
        validate_bad(v, csv, r, "fsdp", "%" G_GUINT64_FORMAT ": expected 0 or 1", fsdp);
        return false;
    }
    if (gb == 0) {
        validate_skip(v, "no global batch");
        return false;
    }
    if (math == NULL) {
        validate_skip(v, "no precision (column precision: bf16, fp16, fp8, fp8-cs, mxfp8, "
                         "nvfp4)");
        return false;
    }
    if (stack < 0) {
        validate_skip(v, "no software stack (column stack: megatron-lm-2019, megatron-lm, "
                         "megatron-core, nemo, megatron-bridge)");
        return false;
    }
    g_autoptr(GString) stated = g_string_new(NULL);
    if (cp == 0) {
        take_default(v, stated, "cp", "1", "Megatron's default (no context parallelism)");
        cp = 1;
    }
    if (col->vp < 0 || *sim_csv_field(csv, r, col->vp) == '\0')
        take_default(v, stated, "vp", "1", "Megatron's default (no interleaving)");
    if (col->fsdp < 0 || *sim_csv_field(csv, r, col->fsdp) == '\0')
        take_default(v, stated, "fsdp", "0", "Megatron's default");
    if (recompute == -1) {
        take_default(v, stated, "recompute", "none", "Megatron's default");
        recompute = 0;
    }
    tp = MAX(tp, 1);
    pp = MAX(pp, 1);
    if (dp == 0)
        dp = gpus / (tp * cp * pp);
    if (dp == 0) {
        validate_bad(v, csv, r, "dp",
                     "empty, and num_gpus (%" G_GUINT64_FORMAT
                     ") holds no tp x cp x pp = %" G_GUINT64_FORMAT " GPUs",
                     gpus, tp * cp * pp);
        return false;
    }
    if (gpus > 0 && tp * cp * pp * dp != gpus) {
        validate_bad(v, csv, r, "num_gpus",
                     "%" G_GUINT64_FORMAT " is not tp x cp x pp x dp = %" G_GUINT64_FORMAT
                     " x %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT,
                     gpus, tp, cp, pp, dp);
        return false;
    }
    if (mb == 0 && stack == STACK_MEGATRON_LM_2019) {
        /* Before pipeline parallelism there were no microbatches: a
         * replica ran its whole share of the batch at once. */
        mb = MAX(gb / dp, 1);
        g_autofree char *value = g_strdup_printf("%" G_GUINT64_FORMAT, mb);
        take_default(v, stated, "micro_batch", value,
                     "global_batch / dp: Megatron-LM of 2019 had no gradient accumulation");
    } else if (mb == 0) {
        take_default(v, stated, "micro_batch", "1", "Megatron's default --micro-batch-size");
        mb = 1;
    }
    const char *model_text = sim_csv_field(csv, r, col->model);
    const char *id = match_model(v, model_text, params_b, layers, hidden, heads);
    if (id == NULL) {
        validate_skip(v, "no model file matches the row's model");
        return false;
    }
    bool nemo = stack == STACK_NEMO || stack == STACK_MEGATRON_BRIDGE;
    bool mcore = stack != STACK_MEGATRON_LM && stack != STACK_MEGATRON_LM_2019;
    bool sp = mcore && tp > 1; /* and, with it, userbuffers' overlap */
    int zero = fsdp ? 3 : mcore ? 1 : 0;
    GString *ini = g_string_new(NULL);
    g_string_append_printf(ini, "[scenario]\nsystem = %s\nmodel = %s\n", system, id);
    g_string_append_printf(ini, "fidelity = %s\n",
                           v->analytic ? "analytic" : net_fidelity_name(v->fidelity));
    /* The hosts and NVLink domains the row states; else topo-place.h's
     * defaults, stated with the results where they span domains. */
    row->placed = nodes > 0 || domains > 0 || listed;
    if (nodes > 0)
        g_string_append_printf(ini, "nodes = %" G_GUINT64_FORMAT "\n", nodes);
    if (domains > 0)
        g_string_append_printf(ini, "domains = %" G_GUINT64_FORMAT "\n", domains);
    if (listed)
        g_string_append_printf(ini, "domains = %s\n", domain_list);
    g_string_append_printf(ini,
                           "[layout]\ntp = %" G_GUINT64_FORMAT "\ncp = %" G_GUINT64_FORMAT
                           "\npp = %" G_GUINT64_FORMAT "\ndp = %" G_GUINT64_FORMAT
                           "\nvp = %" G_GUINT64_FORMAT "\nrecompute = %s\n",
                           tp, cp, pp, dp, MAX(vp, 1), recompute_names[recompute]);
    g_string_append_printf(ini,
                           "zero = %d\nsp = %s\nflash_attention = %s\ndp_overlap = %s\n"
                           "tp_comm_overlap = %s\n",
                           zero, sp ? "yes" : "no", mcore ? "yes" : "no",
                           mcore || fsdp ? "yes" : "no", sp ? "yes" : "no");
    if (fsdp)
        g_string_append(ini, "fsdp = yes\n");
    /* Layers the stages do not split evenly: NVIDIA's recipes count the
     * embedding and the loss as a layer each (Llama 3.1 405B's 126 on 8 or
     * 16 stages, Megatron-Bridge's llama31_405b). */
    if (model_layers(v, id) % (pp * MAX(vp, 1)) != 0)
        g_string_append(ini, "account_for_embedding = yes\naccount_for_loss = yes\n");
    g_string_append_printf(ini, "[batch]\nglobal_batch = %" G_GUINT64_FORMAT "\n", gb);
    g_string_append_printf(ini, "micro_batch = %" G_GUINT64_FORMAT "\n", mb);
    if (seq_len > 0)
        g_string_append_printf(ini, "seq_len = %" G_GUINT64_FORMAT "\n", seq_len);
    bool current = strcmp(math, "fp8-cs") == 0;
    g_string_append_printf(ini, "[precision]\nmath = %s\n%sfused_cross_entropy = %s\n",
                           current ? "fp8" : math, current ? "fp8_scaling = current\n" : "",
                           nemo ? "yes" : "no");
    if (stack == STACK_MEGATRON_BRIDGE)
        g_string_append_printf(ini, "grad_bytes = 2\nparam_bytes = %d\n",
                               strncmp(math, "fp8", 3) == 0 || strcmp(math, "mxfp8") == 0 ? 1 : 2);
    char vp_text[32] = "", cp_text[32] = "";
    if (vp > 1)
        g_snprintf(vp_text, sizeof vp_text, " vp%" G_GUINT64_FORMAT, vp);
    if (cp > 1)
        g_snprintf(cp_text, sizeof cp_text, " cp%" G_GUINT64_FORMAT, cp);
    row->line = g_array_index(csv->lines, uint32_t, r);
    row->ini = g_string_free(ini, FALSE);
    row->where = g_strdup_printf("%s:%u", csv->path, row->line);
    row->detail = g_strdup_printf("%s tp%" G_GUINT64_FORMAT "%s pp%" G_GUINT64_FORMAT
                                  " dp%" G_GUINT64_FORMAT "%s",
                                  id, tp, cp_text, pp, dp, vp_text);
    row->source = source_name(source);
    row->stated = stated->len > 0 ? g_strdup(stated->str) : NULL;
    row->system = system;
    row->n_gpus = (uint32_t)(tp * cp * pp * dp);
    row->measured_s = measured;
    return true;
}

/* Simulates row with sets applied; false and error on failure. */
bool
train_row_run(const TrainRow *row, char **sets, WorkRunResult *result, GError **error)
{
    g_autoptr(WorkScenario) s = work_scenario_load_data(row->ini, row->where, sets, NULL, error);
    return s != NULL && work_run_scenario(s, NULL, NULL, result, NULL, error);
}

static void
train_row(Validation *v, const SimCsv *csv, const TrainColumns *col, guint r)
{
    TrainRow tr = {0};
    if (!train_row_scenario(v, csv, col, r, &tr))
        return;
    GError *error = NULL;
    WorkRunResult result = {0};
    if (v->read_only) {
        g_autoptr(WorkScenario) s = work_scenario_load_data(tr.ini, tr.where, NULL, NULL, &error);
        if (s == NULL) {
            validate_bad_error(v, error);
            g_error_free(error);
        }
    } else if (!train_row_run(&tr, NULL, &result, &error)) {
        validate_bad_error(v, error);
        g_error_free(error);
    } else {
        const uint64_t *t = result.replay.time_ps;
        double step = MAX((double)result.replay.step_ps, 1.0);
        g_autofree char *where = g_strdup_printf(
            "%.0f %.0f %.0f %.0f %.0f %.0f %.0f%s%s", 100.0 * (double)t[WORK_TIME_COMPUTE] / step,
            100.0 * (double)t[WORK_TIME_TP] / step, 100.0 * (double)t[WORK_TIME_PP] / step,
            100.0 * (double)t[WORK_TIME_DP] / step, 100.0 * (double)t[WORK_TIME_EP] / step,
            100.0 * (double)t[WORK_TIME_CP] / step, 100.0 * (double)t[WORK_TIME_IDLE] / step,
            tr.stated != NULL ? "; defaults: " : "", tr.stated != NULL ? tr.stated : "");
        ValidateRow row = {
            .where = where,
            .line = tr.line,
            .system = tr.system,
            .measure = tr.source,
            .n_gpus = tr.n_gpus,
            .detail = tr.detail,
            .unit = "s",
            .measured = tr.measured_s,
            .simulated = result.step_s,
            .model = NAN,
        };
        validate_record(v, &row);
        if (!tr.placed && result.n_domains > 1)
            validate_default(v, "nodes and domains blank: whole hosts in order, over the fewest "
                                "NVLink domains that hold them, as many hosts in each");
    }
    work_run_result_clear(&result);
    train_row_clear(&tr);
}

bool
validate_train_rows(Validation *v, SimCsvStream *rows, GError **error)
{
    const SimCsv *csv = sim_csv_stream_table(rows);
    TrainColumns col;
    if (!train_columns_find(csv, &col, error))
        return false;
    while (sim_csv_stream_next(rows, error)) {
        v->n_rows++;
        train_row(v, csv, &col, 0);
        validate_row_done(v);
    }
    return error == NULL || *error == NULL;
}

/* ---- Fitting the compute efficiency: one for every generation, or a
 * GPU's own. ---- */

/* The step and the compute time of row at efficiency k. */
bool
train_row_run_at(const TrainRow *row, double k, double *step_s, double *compute_s, GError **error)
{
    char set[64];
    g_snprintf(set, sizeof set, "compute_efficiency=%.6f", k);
    char *sets[] = {set, NULL};
    WorkRunResult result = {0};
    bool ok = train_row_run(row, sets, &result, error);
    if (ok) {
        *step_s = result.step_s;
        *compute_s = (double)result.replay.time_ps[WORK_TIME_COMPUTE] / (double)SIM_PS_PER_S;
    }
    work_run_result_clear(&result);
    return ok;
}

/* The efficiency at which row's simulated step equals its measured one:
 * compute time scales as 1 / k, so from a run at k the step would be met
 * at 1 / k' = 1 / k + (measured - step) / (compute k); two such steps, a
 * run each (the step at the second k is not needed to give it). */
bool
train_row_efficiency(const TrainRow *row, double *k_out, double *step1_s, GError **error)
{
    double k = 1.0, step, compute;
    for (int i = 0; i < 2; i++) {
        if (!train_row_run_at(row, k, &step, &compute, error))
            return false;
        if (i == 0)
            *step1_s = step;
        if (compute <= 0)
            break;
        double inv = 1.0 / k + (row->measured_s - step) / (compute * k);
        k = CLAMP(1.0 / MAX(inv, 1e-3), 0.05, 1.0);
    }
    *k_out = k;
    return true;
}

int
validate_train_calibrate(Validation *v, const char *path)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(SimCsv) csv = sim_csv_read(path, &error);
    TrainColumns col;
    if (csv == NULL || !train_columns_find(csv, &col, &error)) {
        cli_print_error("calibrate", error);
        return 1;
    }
    GArray *rows = g_array_new(FALSE, TRUE, sizeof(TrainRow));
    for (guint r = 0; r < csv->rows->len; r++) {
        TrainRow tr = {0};
        if (train_row_scenario(v, csv, &col, r, &tr))
            g_array_append_val(rows, tr);
    }
    /* A malformed row was reported: no fit from the others. */
    int status = v->n_bad > 0 ? 1 : 0;
    guint n = status == 0 ? rows->len : 0;
    g_autofree double *k = g_new0(double, MAX(n, 1));
    g_autofree double *step1 = g_new0(double, MAX(n, 1));
    if (status == 0) {
        printf("# nvlsim calibrate compute-efficiency: %s, %u training rows of %s (%s fidelity)\n",
               path, n, v->only_system ? v->only_system : "every system",
               net_fidelity_name(v->fidelity));
        printf("%5s %-34s %10s %10s %9s\n", "line", "model and layout", "measured", "at_k=1",
               "row_k");
    }
    for (guint i = 0; i < n && status == 0; i++) {
        TrainRow *tr = &g_array_index(rows, TrainRow, i);
        if (!train_row_efficiency(tr, &k[i], &step1[i], &error)) {
            cli_print_error("calibrate", error);
            status = 1;
            break;
        }
        printf("%5u %-34s %10.3f %10.3f %9.4f\n", tr->line, tr->detail, tr->measured_s, step1[i],
               k[i]);
    }
    if (status == 0 && n == 0) {
        fprintf(stderr, "nvlsim calibrate: %s: no training rows of %s\n", path,
                v->only_system ? v->only_system : "any system");
        status = 1;
    }
    if (status == 0) {
        double fit = cli_rows_median(k, n, G_MAXUINT);
        double sum_in = 0, sum_out = 0, worst_out = 0;
        printf("# rows at the fit k = %.4f (the median of the rows' own), and at the median of "
               "the other rows' (leave one out)\n",
               fit);
        printf("%5s %10s %10s %8s %9s %10s %8s\n", "line", "measured", "at_fit", "err_%",
               "k_others", "at_k_oth", "err_%");
        for (guint i = 0; i < n && status == 0; i++) {
            TrainRow *tr = &g_array_index(rows, TrainRow, i);
            double k_out = n > 1 ? cli_rows_median(k, n, i) : fit;
            double at_fit, at_out, compute;
            if (!train_row_run_at(tr, fit, &at_fit, &compute, &error) ||
                !train_row_run_at(tr, k_out, &at_out, &compute, &error)) {
                cli_print_error("calibrate", error);
                status = 1;
                break;
            }
            double e_in = 100.0 * (at_fit - tr->measured_s) / tr->measured_s;
            double e_out = 100.0 * (at_out - tr->measured_s) / tr->measured_s;
            sum_in += fabs(e_in);
            sum_out += fabs(e_out);
            worst_out = MAX(worst_out, fabs(e_out));
            printf("%5u %10.3f %10.3f %+7.1f%% %9.4f %10.3f %+7.1f%%\n", tr->line, tr->measured_s,
                   at_fit, e_in, k_out, at_out, e_out);
        }
        if (status == 0) {
            printf("# error at the fit (the rows it was fitted on): MAPE %.2f%%\n", sum_in / n);
            if (n > 1)
                printf("# error leaving each row out (fitted on the others): MAPE %.2f%%, max "
                       "%.2f%%\n",
                       sum_out / n, worst_out);
            else
                printf("# error leaving each row out: needs two rows or more\n");
            if (v->only_system != NULL)
                printf("training_efficiency = %.3f\n", fit);
            else
                printf("WORK_COMPUTE_STEP_EFFICIENCY %.3f (sim/work/work-compute.h)\n", fit);
        }
    }
    for (guint i = 0; i < rows->len; i++)
        train_row_clear(&g_array_index(rows, TrainRow, i));
    g_array_unref(rows);
    return status;
}
