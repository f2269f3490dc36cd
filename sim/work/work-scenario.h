/* SPDX-License-Identifier: Apache-2.0 */
/* Scenarios: one training study in a file (GKeyFile), the system, node
 * count, model, layout, batch, precision and fidelity of a step to
 * simulate. `nvlsim run` reads one; `--set group.key=value` overrides any
 * key (`key=value` when one group has it, or Megatron-LM's name for it,
 * such as tensor_model_parallel_size=4). Every key is checked; a typo is
 * an error naming the file, group and key, never a silent default.
 *
 *   [scenario]  name (text), system (a models/system id), nodes (hosts
 *               the job spans: an NVL72 tray, a DGX box; 0: whole hosts
 *               in order), domains (NVLink domains they spread over; 0:
 *               the fewest that hold them; or the hosts of each, such
 *               as 18, 18, 18, 10: full domains and a last smaller one,
 *               the job's GPUs in order), model (a models/llm id),
 *               fidelity (flow | packet | analytic), trace (a trace CSV to replay
 *               instead of generating the step; report-trace.h),
 *               compute_efficiency (0: the GPU's training_efficiency, or
 *               the one share of every generation)
 *   [layout]    tp, cp (1), pp, dp (or gpus = tp cp pp dp; a --set of
 *               either replaces the other as the file gives it), vp, ep (1),
 *               sp (no),
 *               zero (0 to 3), fsdp (no; yes makes zero 3 unless zero is
 *               given), recompute (none | selective | full),
 *               schedule (gpipe | 1f1b | interleaved; default 1f1b, or
 *               interleaved when vp > 1), flash_attention (yes),
 *               dp_overlap (yes), tp_comm_overlap (no; Transformer
 *               Engine's userbuffers, tp > 1 and sp only),
 *               bucket_params (0: Megatron's default),
 *               first_stage_layers, last_stage_layers (an even split),
 *               account_for_embedding, account_for_loss (no): how the
 *               layers split over the stages (work-pipeline.h);
 *               moe_balance (1), moe_capacity_factor (none): a mixture
 *               of experts' routing (the busiest rank's load, WorkComputeConfig)
 *   [batch]     global_batch, micro_batch (1), seq_len (the model's)
 *   [precision] math (bf16 | fp16 | fp8 | mxfp8 | nvfp4: the linear
 *               layers), fp8_scaling (delayed | current; fp8 only), param_bytes
 *               (2), grad_bytes (4), optimizer_bytes (12),
 *               activation_bytes (2), dropout (the model's default),
 *               fused_cross_entropy (yes; WorkComputeConfig)
 *   [faults]    the fabric's faults, on every node (topo-fault.h):
 *               planes_down, links_down, slow_links, slow_rate, crc_links,
 *               crc_error_rate; checked against the system when it is built
 *   [stragglers] ranks (GPUs of the job: "3" or "3, 17"), hosts (hosts of
 *               the job, all their GPUs; ranks or hosts), compute_rate (1:
 *               the share of its compute rate a straggler keeps),
 *               step_delay (0: time it starts each step late); see
 *               work-straggler.h
 * A straggler, or a fault that singles out GPUs' links, turns the
 * generator's symmetric shortcut off (every rank simulated, work-gen.h):
 * ranks that were alike are not.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "net/net.h"
#include "topo/topo-fault.h"
#include "work/work-gen.h"
#include "work/work-layout.h"
#include "work/work-model.h"
#include "work/work-straggler.h"

typedef struct WorkScenario {
    char *path; /* the file, or "(built-in)" */
    char *name;
    char *system_id;
    uint32_t nodes;   /* hosts the job spans; 0: whole hosts in order (topo-place.h) */
    uint32_t domains; /* NVLink domains; 0: the fewest that hold the hosts */
    uint32_t *domain_hosts; /* [domains]: the hosts of each as listed; NULL: as many in each */
    char *model_id;
    char *trace_path; /* NULL: generate */
    NetFidelity fidelity; /* of the network; flow when analytic */
    bool analytic;        /* fidelity = analytic: see work_replay_with */
    /* At the analytic tier, a long step from two short replays of its
     * steady state (work_run_scenario); true when loaded. */
    bool steady;
    WorkLayout layout;
    WorkModel *model;
    WorkGenOptions gen;
    TopoFaults *faults;        /* [faults]; empty when none */
    WorkStragglers stragglers; /* [stragglers]; n_gpus 0 when none */
    /* Not in the file: set by a caller that wants every link's load over
     * time (work_replay_sampled), the bins' first width in ps; 0: none. */
    uint64_t link_bin_ps;
} WorkScenario;

/* "flow", "packet" or "analytic". */
const char *work_scenario_fidelity_name(const WorkScenario *s);

/* The built-in study nvlsim run does with no argument. */
extern const char work_scenario_default[];

/* Loads path (NULL: the built-in default), applies sets ("group.key=value",
 * "key=value" when one group has that key, or "name=value" for one of
 * Megatron-LM's argument names; NULL-terminated, may be NULL), loads the model (models_dir NULL:
 * the shipped models) and checks the layout against it. NULL and an error naming the file, group
 * and key on bad input. */
WorkScenario *work_scenario_load(const char *path, char **sets, const char *models_dir,
                                 GError **error);
/* The same from the text of a scenario file; name stands for the file in
 * messages ("training.csv:7"). */
WorkScenario *work_scenario_load_data(const char *data, const char *name, char **sets,
                                      const char *models_dir, GError **error);
void work_scenario_free(WorkScenario *scenario);
/* Whether key ("group.key", or "key" when one group has it) names a
 * scenario key, as --set takes it. */
bool work_scenario_key_known(const char *key);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WorkScenario, work_scenario_free)

/* The key tables of a scenario's groups ([scenario], [layout], [batch],
 * [precision], [faults], [stragglers]), NULL-terminated. */
extern const HwKeyTable *const work_scenario_key_tables[];
