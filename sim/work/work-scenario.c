/* SPDX-License-Identifier: Apache-2.0 */
/* Scenarios (see work-scenario.h): key tables per group, overrides, and
 * the checks that turn a file into a layout. */
#include "work/work-scenario.h"

#include <stddef.h>
#include <string.h>

#include "core/core-text.h"
#include "core/core-units.h"
#include "hw/hw-keys.h"
#include "topo/topo-place.h"

/* GPT-3 175B laid out as Megatron-LM's SC21 runs lay out its size
 * (Narayanan et al. 2021, Table 1: tp 8, pp 8, interleaved stages,
 * activation recomputation), on 16 DGX A100 (two pipelines of 64 GPUs, 32
 * microbatches): a step that shows compute, the tensor-parallel
 * all-reduces, the pipeline bubble and the gradient reduction. */
const char work_scenario_default[] =
    "[scenario]\n"
    "name = GPT-3 175B on 16 DGX A100: tp 8, pp 8 x 2 virtual, dp 2\n"
    "system = dgx-a100\n"
    "model = gpt3-175b\n"
    "fidelity = flow\n"
    "[layout]\n"
    "tp = 8\n"
    "pp = 8\n"
    "dp = 2\n"
    "vp = 2\n"
    "recompute = full\n"
    "flash_attention = no\n"
    "dp_overlap = no\n"
    "[batch]\n"
    "global_batch = 64\n"
    "micro_batch = 1\n"
    "[precision]\n"
    "math = fp16\n";

typedef struct ScenarioFile {
    char *name, *system, *model, *fidelity, *trace;
    double compute_efficiency;
    double moe_balance;
    char *moe_capacity_factor;
    uint64_t nodes;
    char *domains;
    uint64_t tp, cp, pp, dp, gpus, vp, ep, zero, bucket_params;
    uint64_t first_stage_layers, last_stage_layers;
    bool sp, flash_attention, dp_overlap, tp_comm_overlap, dropout, fused_cross_entropy,
        account_for_embedding, account_for_loss, fsdp;
    char *recompute, *schedule;
    uint64_t global_batch, micro_batch, seq_len;
    char *math, *fp8_scaling;
    uint64_t param_bytes, grad_bytes, optimizer_bytes, activation_bytes;
    char *straggler_ranks, *straggler_hosts;
    double straggler_rate;
    uint64_t straggler_delay_ps;
} ScenarioFile;

#define K(group_name, kind, field, required, help)                                                 \
    {                                                                                              \
        group_name, kind, offsetof(ScenarioFile, field), required, help                            \
    }

static const HwKey scenario_keys[] = {
    K("name", HW_KEY_STRING, name, false, "a title for tables"),
    K("system", HW_KEY_STRING, system, true, "a models/system id"),
    K("nodes", HW_KEY_COUNT, nodes, false,
      "hosts the job spans, as schedulers count them: an NVL72 tray, a DGX box (0: whole "
      "hosts in order)"),
    K("domains", HW_KEY_STRING, domains, false,
      "NVLink domains the hosts spread over, as many in each (0: the fewest that hold them), "
      "or the hosts of each, such as 18, 18, 18, 10"),
    K("model", HW_KEY_STRING, model, false, "a models/llm id"),
    K("fidelity", HW_KEY_STRING, fidelity, false,
      "flow, packet or analytic (each call's time alone at flow fidelity, no shared network)"),
    K("trace", HW_KEY_STRING, trace, false, "a trace CSV to replay"),
    K("compute_efficiency", HW_KEY_FRACTION, compute_efficiency, false,
      "share of the kernel model's rate sustained (default: one share for every generation)"),
};

static const HwKey layout_keys[] = {
    K("tp", HW_KEY_COUNT, tp, false, "tensor-parallel ranks"),
    K("pp", HW_KEY_COUNT, pp, false, "pipeline stages"),
    K("dp", HW_KEY_COUNT, dp, false, "data-parallel replicas"),
    K("gpus", HW_KEY_COUNT, gpus, false, "tp x cp x pp x dp, instead of dp"),
    K("cp", HW_KEY_COUNT, cp, false, "context-parallel ranks (ring attention)"),
    K("vp", HW_KEY_COUNT, vp, false, "virtual stages per pipeline rank"),
    K("first_stage_layers", HW_KEY_COUNT, first_stage_layers, false,
      "transformer layers of the first pipeline stage (default: an even split)"),
    K("last_stage_layers", HW_KEY_COUNT, last_stage_layers, false,
      "transformer layers of the last pipeline stage (default: an even split)"),
    K("account_for_embedding", HW_KEY_BOOL, account_for_embedding, false,
      "count the embedding as a layer of the first stage"),
    K("account_for_loss", HW_KEY_BOOL, account_for_loss, false,
      "count the loss as a layer of the last stage"),
    K("ep", HW_KEY_COUNT, ep, false, "expert-parallel ranks"),
    K("moe_balance", HW_KEY_FRACTION, moe_balance, false,
      "the tokens an expert-parallel rank receives on average over the busiest's (1: balanced)"),
    K("moe_capacity_factor", HW_KEY_STRING, moe_capacity_factor, false,
      "the most tokens an expert takes over its even share, such as 1.25 (none: dropless)"),
    K("sp", HW_KEY_BOOL, sp, false, "sequence parallelism"),
    K("zero", HW_KEY_COUNT, zero, false, "ZeRO stage 0 to 3"),
    K("fsdp", HW_KEY_BOOL, fsdp, false,
      "fully sharded data parallelism: zero 3's sharding, every microbatch's gradients "
      "reduce-scattered block by block"),
    K("recompute", HW_KEY_STRING, recompute, false, "none, selective or full"),
    K("schedule", HW_KEY_STRING, schedule, false, "gpipe, 1f1b or interleaved"),
    K("flash_attention", HW_KEY_BOOL, flash_attention, false, "fused attention"),
    K("dp_overlap", HW_KEY_BOOL, dp_overlap, false, "reduce gradients during backward"),
    K("tp_comm_overlap", HW_KEY_BOOL, tp_comm_overlap, false,
      "tensor-parallel collectives beside their GEMMs (Transformer Engine's userbuffers; "
      "tp > 1 and sp)"),
    K("bucket_params", HW_KEY_COUNT, bucket_params, false, "parameters per gradient bucket"),
};

static const HwKey batch_keys[] = {
    K("global_batch", HW_KEY_COUNT, global_batch, true, "sequences per step"),
    K("micro_batch", HW_KEY_COUNT, micro_batch, false, "sequences per microbatch"),
    K("seq_len", HW_KEY_COUNT, seq_len, false, "tokens per sequence"),
};

static const HwKey precision_keys[] = {
    K("math", HW_KEY_STRING, math, false,
      "the linear layers: bf16, fp16, fp8, mxfp8 or nvfp4 (fp32 too)"),
    K("fp8_scaling", HW_KEY_STRING, fp8_scaling, false,
      "fp8's per-tensor scales: delayed (default) or current"),
    K("param_bytes", HW_KEY_COUNT, param_bytes, false, "bytes per working parameter"),
    K("grad_bytes", HW_KEY_COUNT, grad_bytes, false, "bytes per gradient"),
    K("optimizer_bytes", HW_KEY_COUNT, optimizer_bytes, false, "optimizer bytes per parameter"),
    K("activation_bytes", HW_KEY_COUNT, activation_bytes, false, "bytes per activation"),
    K("dropout", HW_KEY_BOOL, dropout, false, "dropout kernels"),
    K("fused_cross_entropy", HW_KEY_BOOL, fused_cross_entropy, false,
      "the loss in one kernel a pass (default yes); no: Megatron's unfused cross entropy"),
};

static const HwKey straggler_keys[] = {
    K("ranks", HW_KEY_STRING, straggler_ranks, false, "GPUs of the job that straggle, such as 3"),
    K("hosts", HW_KEY_STRING, straggler_hosts, false,
      "hosts of the job whose GPUs all straggle (a slow tray or server), numbered as the job "
      "fills them from 0, such as 3"),
    K("compute_rate", HW_KEY_FRACTION, straggler_rate, false,
      "share of its compute rate a straggler keeps (default 1)"),
    K("step_delay", HW_KEY_TIME_PS, straggler_delay_ps, false,
      "time a straggler starts each step late, such as 5ms (default 0)"),
};

typedef struct Group {
    const char *name;
    const HwKey *keys;
    size_t n_keys;
    bool required;
    bool own_loader; /* read by its layer's loader, not into ScenarioFile */
} Group;

static const Group groups[] = {
    {"scenario", scenario_keys, G_N_ELEMENTS(scenario_keys), true, false},
    {"layout", layout_keys, G_N_ELEMENTS(layout_keys), false, false},
    {"batch", batch_keys, G_N_ELEMENTS(batch_keys), false, false},
    {"precision", precision_keys, G_N_ELEMENTS(precision_keys), false, false},
    {"faults", topo_fault_keys, TOPO_N_FAULT_KEYS, false, true},
    {"stragglers", straggler_keys, G_N_ELEMENTS(straggler_keys), false, false},
};

#define SCENARIO_TABLE(name, keys)                                                                 \
    {                                                                                              \
        "scenario", name, keys, G_N_ELEMENTS(keys)                                                 \
    }

static const HwKeyTable scenario_tables[] = {
    SCENARIO_TABLE("scenario", scenario_keys),    SCENARIO_TABLE("layout", layout_keys),
    SCENARIO_TABLE("batch", batch_keys),          SCENARIO_TABLE("precision", precision_keys),
    SCENARIO_TABLE("stragglers", straggler_keys),
};

const HwKeyTable *const work_scenario_key_tables[] = {
    &scenario_tables[0],
    &scenario_tables[1],
    &scenario_tables[2],
    &scenario_tables[3],
    &topo_fault_key_table,
    &scenario_tables[4],
    NULL,
};

static void
file_clear(ScenarioFile *f)
{
    g_free(f->name);
    g_free(f->system);
    g_free(f->model);
    g_free(f->fidelity);
    g_free(f->trace);
    g_free(f->recompute);
    g_free(f->schedule);
    g_free(f->math);
    g_free(f->fp8_scaling);
    g_free(f->moe_capacity_factor);
    g_free(f->straggler_ranks);
    g_free(f->straggler_hosts);
    g_free(f->domains);
}

static const Group *
group_named(const char *name)
{
    for (unsigned i = 0; i < G_N_ELEMENTS(groups); i++)
        if (strcmp(groups[i].name, name) == 0)
            return &groups[i];
    return NULL;
}

static bool
group_has(const Group *g, const char *key)
{
    for (size_t i = 0; i < g->n_keys; i++)
        if (strcmp(g->keys[i].name, key) == 0)
            return true;
    return false;
}

bool
work_scenario_key_known(const char *key)
{
    const char *dot = strchr(key, '.');
    if (dot == NULL) {
        for (unsigned i = 0; i < G_N_ELEMENTS(groups); i++)
            if (group_has(&groups[i], key))
                return true;
        return false;
    }
    g_autofree char *name = g_strndup(key, dot - key);
    const Group *group = group_named(name);
    return group != NULL && group_has(group, dot + 1);
}

/* Megatron-LM's argument names (megatron/training/arguments.py) for the
 * keys they mean, as --set takes them, with _ or - ("tensor-model-parallel-
 * size=4"): its scripts then carry over as they are. */
typedef struct Alias {
    const char *name, *group, *key;
} Alias;

static const Alias megatron_names[] = {
    {"tensor_model_parallel_size", "layout", "tp"},
    {"pipeline_model_parallel_size", "layout", "pp"},
    {"virtual_pipeline_model_parallel_size", "layout", "vp"},
    {"decoder_first_pipeline_num_layers", "layout", "first_stage_layers"},
    {"decoder_last_pipeline_num_layers", "layout", "last_stage_layers"},
    {"account_for_embedding_in_pipeline_split", "layout", "account_for_embedding"},
    {"account_for_loss_in_pipeline_split", "layout", "account_for_loss"},
    {"expert_model_parallel_size", "layout", "ep"},
    {"moe_expert_capacity_factor", "layout", "moe_capacity_factor"},
    {"context_parallel_size", "layout", "cp"},
    {"sequence_parallel", "layout", "sp"},
    {"recompute_granularity", "layout", "recompute"},
    /* Sharding the optimizer state across data-parallel ranks: ZeRO 1. */
    {"use_distributed_optimizer", "layout", "zero"},
    {"micro_batch_size", "batch", "micro_batch"},
    {"global_batch_size", "batch", "global_batch"},
    {"seq_length", "batch", "seq_len"},
};

static const Alias *
megatron_named(const char *name)
{
    g_autofree char *underscored = g_strdelimit(g_strdup(name), "-", '_');
    for (size_t i = 0; i < G_N_ELEMENTS(megatron_names); i++)
        if (strcmp(megatron_names[i].name, underscored) == 0)
            return &megatron_names[i];
    return NULL;
}

/* What a Megatron-LM name sets: its group, key and value (text, or the
 * ZeRO stage of use_distributed_optimizer) in *group, *key and *value
 * (newly allocated). False and an error for a value the key cannot
 * take. */
static bool
megatron_set(const char *set, const Alias *alias, const char *text, const Group **group,
             const char **key, char **value, GError **error)
{
    if (strcmp(alias->key, "zero") == 0) {
        bool on;
        if (!hw_keys_parse_bool(text, &on, error)) {
            g_prefix_error(error, "--set %s: ", set);
            return false;
        }
        text = on ? "1" : "0";
    }
    *group = group_named(alias->group);
    *key = alias->key;
    *value = g_strdup(text);
    return true;
}

/* The group of a bare key: the one group that has it. */
static const Group *
group_of(const char *key)
{
    const Group *group = NULL;
    for (unsigned i = 0; i < G_N_ELEMENTS(groups); i++)
        if (group_has(&groups[i], key))
            group = &groups[i];
    return group;
}

/* layout.gpus and layout.dp say the same thing: a --set of one replaces
 * the other as the file gives it; both set is an error. seen holds the
 * ones set so far (bit 0: dp, bit 1: gpus). */
static bool
set_data_parallel(GKeyFile *kf, const char *set, const char *key, unsigned *seen, GError **error)
{
    bool gpus = strcmp(key, "gpus") == 0;
    if (!gpus && strcmp(key, "dp") != 0)
        return true;
    const char *other = gpus ? "dp" : "gpus";
    if (*seen & (gpus ? 1u : 2u)) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "--set %s: --set %s gives the data parallelism too; expected gpus (dp = gpus "
                    "/ (tp x cp x pp)) or dp, not both",
                    set, other);
        return false;
    }
    *seen |= gpus ? 2u : 1u;
    g_key_file_remove_key(kf, "layout", other, NULL);
    return true;
}

/* "group.key=value", "key=value" or a Megatron-LM name's "name=value"
 * into kf; seen as set_data_parallel takes it. */
static bool
apply_set(GKeyFile *kf, const char *set, unsigned *seen, GError **error)
{
    const char *eq = strchr(set, '=');
    if (eq == NULL || eq == set) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                    "--set %s: expected group.key=value or key=value", set);
        return false;
    }
    g_autofree char *name = g_strndup(set, eq - set);
    g_strstrip(name);
    g_autofree char *value = g_strdup(eq + 1);
    char *dot = strchr(name, '.');
    const Group *group = NULL;
    const char *key = name;
    if (dot != NULL) {
        *dot = '\0';
        key = dot + 1;
        group = group_named(name);
        if (group == NULL || !group_has(group, key)) {
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_UNKNOWN,
                        "--set %s: unknown key %s.%s; groups are scenario, layout, batch, "
                        "precision, faults, stragglers",
                        set, name, key);
            return false;
        }
    } else if ((group = group_of(key)) == NULL) {
        const Alias *alias = megatron_named(key);
        if (alias == NULL) {
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_UNKNOWN,
                        "--set %s: unknown key %s; see nvlsim run --help", set, key);
            return false;
        }
        g_clear_pointer(&value, g_free);
        if (!megatron_set(set, alias, eq + 1, &group, &key, &value, error))
            return false;
        if (group == NULL)
            return true;
    }
    if (strcmp(group->name, "layout") == 0 && !set_data_parallel(kf, set, key, seen, error))
        return false;
    g_key_file_set_value(kf, group->name, key, value);
    return true;
}

static bool
check_groups(GKeyFile *kf, const char *path, GError **error)
{
    g_auto(GStrv) names = g_key_file_get_groups(kf, NULL);
    for (char **n = names; *n; n++)
        if (group_named(*n) == NULL) {
            g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_UNKNOWN,
                        "%s: [%s]: unknown group; expected [scenario], [layout], [batch], "
                        "[precision], [faults], [stragglers]",
                        path, *n);
            return false;
        }
    return true;
}

static bool
choice(const char *path, const char *group, const char *key, const char *text,
       const char *const *names, size_t n, size_t *out, GError **error)
{
    return hw_keys_choice(path, group, key, text, names, n, out, error);
}

/* [scenario] domains: a count (0 to 100000), or the hosts of each domain
 * (each 1 to 100000) separated by commas or '+'. */
static bool
resolve_domains(const ScenarioFile *f, const char *path, WorkScenario *s, GError **error)
{
    if (f->domains == NULL)
        return true;
    if (topo_place_parse_domain_hosts(f->domains, 100000, &s->domain_hosts, &s->domains)) {
        if (s->domain_hosts != NULL)
            return true;
    } else {
        uint64_t count;
        g_autofree char *text = g_strstrip(g_strdup(f->domains));
        if (sim_units_parse_count(text, &count, NULL) && count <= 100000) {
            s->domains = (uint32_t)count;
            return true;
        }
    }
    return hw_keys_fail(error, path, "scenario", "domains",
                        "'%s': expected a count of NVLink domains (0 to 100000) or the "
                        "hosts of each, whole numbers from 1, such as 18, 18, 18, 10",
                        f->domains);
}

/* A [stragglers] list (key) of numbers below 2^20, such as "3, 17":
 * ascending and distinct in *out (*n of them). */
static bool
straggler_list(const char *text, const char *path, const char *key, const char *what,
               uint32_t **out, uint32_t *n, GError **error)
{
    *out = NULL;
    *n = 0;
    if (text == NULL)
        return true;
    g_auto(GStrv) items = g_strsplit_set(text, ", \t", -1);
    g_autoptr(GArray) list = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (char **item = items; *item; item++) {
        uint64_t g;
        if (**item == '\0')
            continue;
        GError *local = NULL;
        if (!sim_units_parse_count(*item, &g, &local) || g >= (1u << 20)) {
            g_clear_error(&local);
            return hw_keys_fail(error, path, "stragglers", key,
                                "'%s' is not a %s number; expected %ss of the job such as 3 "
                                "or 3, 17",
                                *item, what, what);
        }
        uint32_t x = (uint32_t)g;
        g_array_append_val(list, x);
    }
    *out = work_stragglers_distinct(list, n);
    return true;
}

/* [stragglers] ranks and hosts: GPU and host numbers, one of them at
 * least where the group is. */
static bool
resolve_stragglers(const ScenarioFile *f, const char *path, GKeyFile *kf, WorkScenario *s,
                   GError **error)
{
    WorkStragglers *st = &s->stragglers;
    st->compute_rate = f->straggler_rate;
    st->delay_ps = f->straggler_delay_ps;
    if (g_key_file_has_group(kf, "stragglers") && f->straggler_ranks == NULL &&
        f->straggler_hosts == NULL)
        return hw_keys_fail(error, path, "stragglers", "ranks",
                            "missing; expected GPUs of the job that straggle (ranks), or hosts "
                            "whose GPUs all do (hosts)");
    return straggler_list(f->straggler_ranks, path, "ranks", "GPU", &st->gpus, &st->n_gpus,
                          error) &&
           straggler_list(f->straggler_hosts, path, "hosts", "host", &st->hosts, &st->n_hosts,
                          error);
}

/* [layout] moe_balance and moe_capacity_factor: the busiest expert-
 * parallel rank's tokens over the mean, 1 / balance, at most the capacity
 * factor (Megatron-Core's --moe-expert-capacity-factor: an expert takes at
 * most that many times its even share and drops the rest); only for a
 * mixture of experts. */
static bool
moe_load(const ScenarioFile *f, const WorkModel *model, const char *path, GKeyFile *kf,
         double *load, GError **error)
{
    bool balance = g_key_file_has_key(kf, "layout", "moe_balance", NULL);
    const char *key = balance ? "moe_balance" : "moe_capacity_factor";
    if ((balance || f->moe_capacity_factor != NULL) && model->n_experts == 0)
        return hw_keys_fail(error, path, "layout", key,
                            "routes tokens to experts; expected a mixture-of-experts model, and "
                            "%s is dense",
                            model->name);
    *load = 1.0 / f->moe_balance;
    if (f->moe_capacity_factor == NULL)
        return true;
    char *end;
    double c = g_ascii_strtod(f->moe_capacity_factor, &end);
    double most = (double)model->n_experts / (double)model->top_k;
    if (*end != '\0' || end == f->moe_capacity_factor || !(c > 0) || !(c <= most))
        return hw_keys_fail(error, path, "layout", "moe_capacity_factor",
                            "'%s': expected a factor above 0 and at most %g (the %" G_GUINT64_FORMAT
                            " experts over top_k %" G_GUINT64_FORMAT
                            ", where no token is dropped), such as 1.25",
                            f->moe_capacity_factor, most, model->n_experts, model->top_k);
    *load = MIN(*load, c);
    return true;
}

/* A straggler beyond the job: an error once the layout gives its size. */
static bool
check_stragglers(const WorkScenario *s, const char *path, GError **error)
{
    uint64_t n = work_layout_gpus(&s->layout);
    for (uint32_t i = 0; i < s->stragglers.n_gpus; i++)
        if (s->stragglers.gpus[i] >= n)
            return hw_keys_fail(error, path, "stragglers", "ranks",
                                "GPU %u is not one of the job's %" G_GUINT64_FORMAT
                                " GPUs; expected 0 to %" G_GUINT64_FORMAT,
                                s->stragglers.gpus[i], n, n - 1);
    return true;
}

/* [layout] first_stage_layers and last_stage_layers: absent (0 in the
 * layout: an even split), or at least 1, as Megatron-LM demands; whether
 * they split the model is work_layout_check's to say. */
static bool
check_stage_layers(const ScenarioFile *f, const char *path, GKeyFile *kf, GError **error)
{
    const char *keys[] = {"first_stage_layers", "last_stage_layers"};
    const uint64_t values[] = {f->first_stage_layers, f->last_stage_layers};
    for (unsigned i = 0; i < G_N_ELEMENTS(keys); i++) {
        if (!g_key_file_has_key(kf, "layout", keys[i], NULL))
            continue;
        if (values[i] == 0)
            return hw_keys_fail(error, path, "layout", keys[i],
                                "0; expected at least 1 (every stage holds a layer; without the "
                                "key the layers split evenly)");
        if (!hw_keys_check_range(path, "layout", keys[i], values[i], 1, 1u << 20, error))
            return false;
    }
    return true;
}

/* The file's values into a scenario, with the defaults of work-scenario.h. */
static bool
resolve(const ScenarioFile *f, const char *path, GKeyFile *kf, const char *models_dir,
        WorkScenario *s, GError **error)
{
    s->name = g_strdup(f->name != NULL ? f->name : path);
    s->system_id = g_strdup(f->system);
    s->trace_path = g_strdup(f->trace);
    if (!resolve_stragglers(f, path, kf, s, error))
        return false;
    if (!hw_keys_check_range(path, "scenario", "nodes", f->nodes, 0, 100000, error))
        return false;
    s->nodes = (uint32_t)f->nodes;
    if (!resolve_domains(f, path, s, error))
        return false;
    s->analytic = f->fidelity != NULL && strcmp(f->fidelity, "analytic") == 0;
    if (f->fidelity != NULL && !s->analytic && !net_fidelity_parse(f->fidelity, &s->fidelity))
        return hw_keys_fail(error, path, "scenario", "fidelity",
                            "'%s' is not one of: flow, packet, analytic", f->fidelity);
    if (s->trace_path != NULL)
        return true;
    if (f->model == NULL)
        return hw_keys_fail(error, path, "scenario", "model",
                            "missing: a models/llm id (or trace = FILE)");
    s->model_id = g_strdup(f->model);
    s->model = work_model_load_by_id(f->model, models_dir, error);
    if (s->model == NULL) {
        g_prefix_error(error, "%s: [scenario] model: ", path);
        return false;
    }
    WorkLayout *l = &s->layout;
    static const char *const recompute_names[] = {"none", "selective", "full"};
    static const char *const schedule_names[] = {"gpipe", "1f1b", "interleaved"};
    static const char *const math_names[] = {"fp16", "fp8", "fp32", "bf16", "mxfp8", "nvfp4"};
    static const char *const scaling_names[] = {"delayed", "current"};
    size_t recompute = 0, schedule, math = 0, scaling = 0;
    if (f->recompute != NULL &&
        !choice(path, "layout", "recompute", f->recompute, recompute_names, 3, &recompute, error))
        return false;
    schedule = f->vp > 1 ? WORK_SCHEDULE_INTERLEAVED : WORK_SCHEDULE_1F1B;
    if (f->schedule != NULL &&
        !choice(path, "layout", "schedule", f->schedule, schedule_names, 3, &schedule, error))
        return false;
    if (f->math != NULL && !choice(path, "precision", "math", f->math, math_names, 6, &math, error))
        return false;
    if (f->fp8_scaling != NULL && !choice(path, "precision", "fp8_scaling", f->fp8_scaling,
                                          scaling_names, 2, &scaling, error))
        return false;
    if (f->fp8_scaling != NULL && math != 1)
        return hw_keys_fail(error, path, "precision", "fp8_scaling",
                            "%s scales fp8 tensors; expected math = fp8 with it (math is %s)",
                            f->fp8_scaling, f->math != NULL ? f->math : "bf16");
    if (f->zero > 3)
        return hw_keys_fail(error, path, "layout", "zero",
                            "%" G_GUINT64_FORMAT " is out of range: expected 0 to 3", f->zero);
    uint64_t limit = 1u << 20;
    const char *counts[] = {"tp", "cp", "pp", "dp", "vp", "ep"};
    const uint64_t values[] = {f->tp, f->cp, f->pp, f->dp, f->vp, f->ep};
    for (unsigned i = 0; i < G_N_ELEMENTS(counts); i++)
        if (!hw_keys_check_range(path, "layout", counts[i], values[i], 1, limit, error))
            return false;
    /* Checked here, in 64 bits and under their own group, before the
     * layout narrows them (work_layout_check checks them again there). */
    const char *byte_keys[] = {"param_bytes", "grad_bytes", "optimizer_bytes", "activation_bytes"};
    const uint64_t byte_values[] = {f->param_bytes, f->grad_bytes, f->optimizer_bytes,
                                    f->activation_bytes};
    for (unsigned i = 0; i < G_N_ELEMENTS(byte_keys); i++)
        if (!hw_keys_check_range(
                path, "precision", byte_keys[i], byte_values[i], i == 2 ? 0 : 1,
                i == 2 ? WORK_LAYOUT_MAX_OPTIMIZER_BYTES : WORK_LAYOUT_MAX_VALUE_BYTES, error))
            return false;
    if (!check_stage_layers(f, path, kf, error))
        return false;
    uint64_t dp = f->dp;
    if (g_key_file_has_key(kf, "layout", "gpus", NULL)) {
        if (g_key_file_has_key(kf, "layout", "dp", NULL))
            return hw_keys_fail(error, path, "layout", "gpus", "give gpus or dp, not both");
        uint64_t model = f->tp * f->cp * f->pp;
        if (f->gpus == 0 || f->gpus % model != 0)
            return hw_keys_fail(error, path, "layout", "gpus",
                                "%" G_GUINT64_FORMAT
                                " is not a multiple of tp x cp x pp = %" G_GUINT64_FORMAT
                                " (dp = gpus / (tp x cp x pp))",
                                f->gpus, model);
        dp = f->gpus / model;
    }
    if (f->tp * f->cp * f->pp * dp > limit)
        return hw_keys_fail(error, path, "layout", "dp",
                            "tp x cp x pp x dp = %" G_GUINT64_FORMAT
                            " GPUs is more than %" G_GUINT64_FORMAT,
                            f->tp * f->cp * f->pp * dp, limit);
    *l = (WorkLayout){
        .tp = (uint32_t)f->tp,
        .cp = (uint32_t)f->cp,
        .pp = (uint32_t)f->pp,
        .dp = (uint32_t)dp,
        .vp = (uint32_t)f->vp,
        .ep = (uint32_t)f->ep,
        .sp = f->sp,
        .flash_attention = f->flash_attention,
        .zero = f->fsdp && !g_key_file_has_key(kf, "layout", "zero", NULL) ? WORK_ZERO_3
                                                                           : (WorkZero)f->zero,
        .fsdp = f->fsdp,
        .recompute = (WorkRecompute)recompute,
        .schedule = (WorkSchedule)schedule,
        .first_stage_layers = (uint32_t)f->first_stage_layers,
        .last_stage_layers = (uint32_t)f->last_stage_layers,
        .account_for_embedding = f->account_for_embedding,
        .account_for_loss = f->account_for_loss,
        .global_batch = f->global_batch,
        .micro_batch = f->micro_batch,
        /* A seq_len given as 0 is refused below, not the model's. */
        .seq_len =
            g_key_file_has_key(kf, "batch", "seq_len", NULL) ? f->seq_len : s->model->seq_len,
        .param_bytes = (uint32_t)f->param_bytes,
        .grad_bytes = (uint32_t)f->grad_bytes,
        .optimizer_bytes = (uint32_t)f->optimizer_bytes,
        .activation_bytes = (uint32_t)f->activation_bytes,
    };
    if (!work_layout_check(l, s->model, error)) {
        g_prefix_error(error, "%s: [layout] ", path);
        return false;
    }
    if (f->tp_comm_overlap && (l->tp < 2 || !l->sp))
        return hw_keys_fail(error, path, "layout", "tp_comm_overlap",
                            "yes needs tp > 1 and sp = yes (userbuffers overlap the sequence-"
                            "parallel all-gathers and reduce-scatters), got tp %u, sp %s",
                            l->tp, l->sp ? "yes" : "no");
    if (!check_stragglers(s, path, error))
        return false;
    work_gen_options_init(&s->gen, s->model);
    s->gen.symmetric =
        !work_stragglers_active(&s->stragglers) && !topo_faults_single_out_gpus(s->faults);
    static const WorkMath maths[] = {WORK_MATH_FP16, WORK_MATH_FP8, WORK_MATH_FP32,
                                     WORK_MATH_FP16, WORK_MATH_FP8, WORK_MATH_FP4};
    static const WorkScaling scalings[] = {WORK_SCALING_NONE,  WORK_SCALING_DELAYED,
                                           WORK_SCALING_NONE,  WORK_SCALING_NONE,
                                           WORK_SCALING_MXFP8, WORK_SCALING_NVFP4};
    s->gen.compute.linear_math = maths[math];
    s->gen.compute.scaling = scaling == 1 ? WORK_SCALING_CURRENT : scalings[math];
    if (!moe_load(f, s->model, path, kf, &s->gen.compute.moe_load, error))
        return false;
    s->gen.dp_overlap = f->dp_overlap;
    s->gen.tp_overlap = f->tp_comm_overlap;
    s->gen.bucket_params = f->bucket_params;
    s->gen.compute_efficiency = f->compute_efficiency;
    if (g_key_file_has_key(kf, "precision", "dropout", NULL))
        s->gen.compute.dropout = f->dropout;
    if (g_key_file_has_key(kf, "precision", "fused_cross_entropy", NULL))
        s->gen.compute.fused_cross_entropy = f->fused_cross_entropy;
    return true;
}

WorkScenario *
work_scenario_load(const char *path, char **sets, const char *models_dir, GError **error)
{
    if (path == NULL)
        return work_scenario_load_data(work_scenario_default, "(built-in)", sets, models_dir,
                                       error);
    g_autofree char *data = NULL;
    gsize length = 0;
    if (!sim_text_read(path, "a scenario file", &data, &length, error))
        return NULL;
    return work_scenario_load_data(data, path, sets, models_dir, error);
}

WorkScenario *
work_scenario_load_data(const char *data, const char *name, char **sets, const char *models_dir,
                        GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    if (!hw_keys_data_load(kf, name, data, strlen(data), error))
        return NULL;
    unsigned seen = 0;
    for (char **set = sets; set != NULL && *set != NULL; set++)
        if (!apply_set(kf, *set, &seen, error))
            return NULL;
    ScenarioFile f = {
        .vp = 1,
        .ep = 1,
        .cp = 1,
        .flash_attention = true,
        .dp_overlap = true,
        .micro_batch = 1,
        .tp = 1,
        .pp = 1,
        .dp = 1,
        .param_bytes = 2,
        .grad_bytes = 4,
        .optimizer_bytes = 12,
        .activation_bytes = 2,
        .straggler_rate = 1.0,
        .moe_balance = 1.0,
    };
    bool ok = check_groups(kf, name, error);
    for (unsigned i = 0; ok && i < G_N_ELEMENTS(groups); i++) {
        if (groups[i].own_loader ||
            (!groups[i].required && !g_key_file_has_group(kf, groups[i].name)))
            continue;
        ok = hw_keys_load(kf, name, groups[i].name, groups[i].keys, groups[i].n_keys, &f, error);
    }
    WorkScenario *s = g_new0(WorkScenario, 1);
    s->path = g_strdup(name);
    s->fidelity = NET_FIDELITY_FLOW;
    s->analytic = false;
    s->steady = true;
    s->faults = topo_faults_new();
    ok = ok && topo_faults_load(s->faults, kf, name, error);
    if (ok && f.trace == NULL && !g_key_file_has_group(kf, "batch")) {
        g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_MISSING,
                    "%s: [batch]: missing group; expected global_batch at least", name);
        ok = false;
    }
    ok = ok && resolve(&f, name, kf, models_dir, s, error);
    file_clear(&f);
    if (!ok) {
        work_scenario_free(s);
        return NULL;
    }
    return s;
}

const char *
work_scenario_fidelity_name(const WorkScenario *s)
{
    return s->analytic ? "analytic" : net_fidelity_name(s->fidelity);
}

void
work_scenario_free(WorkScenario *s)
{
    if (s == NULL)
        return;
    g_free(s->path);
    g_free(s->name);
    g_free(s->system_id);
    g_free(s->model_id);
    g_free(s->trace_path);
    work_model_free(s->model);
    topo_faults_free(s->faults);
    g_free(s->stragglers.gpus);
    g_free(s->stragglers.hosts);
    g_free(s->domain_hosts);
    g_free(s);
}
