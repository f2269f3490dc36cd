/* SPDX-License-Identifier: Apache-2.0 */
/* Runtime models from models/runtime/ID.ini: the host's and the GPU's
 * fixed costs of a collective call (hw-runtime.h). Times are bounded to
 * what a launch can cost (up to 1 ms); a harness times 1 to 10^6 calls.
 */
#include "hw/hw-runtime.h"

#include "hw/hw-keys.h"

#define FIELD(f) offsetof(HwRuntime, f)

static const HwKey runtime_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "what runs the calls, such as NCCL 2.2x on CUDA 12"},
    {"host_issue", HW_KEY_TIME_PS, FIELD(host_issue_ps), true,
     "host time per call and per GPU the calling thread drives (enqueue, launch), such as 4us"},
    {"graph_issue", HW_KEY_TIME_PS, FIELD(graph_issue_ps), true,
     "host time per call and per GPU when the calls are launched as a CUDA graph, such as 0.5us"},
    {"launch_latency", HW_KEY_TIME_PS, FIELD(launch_latency_ps), true,
     "from the launch call to the kernel running, such as 5us"},
    {"kernel_gap", HW_KEY_TIME_PS, FIELD(kernel_gap_ps), true,
     "between back-to-back kernels of one stream, such as 1us"},
    {"graph_kernel_gap", HW_KEY_TIME_PS, FIELD(graph_kernel_gap_ps), true,
     "between back-to-back kernels of one CUDA graph, such as 0.5us"},
    {"kernel_setup", HW_KEY_TIME_PS, FIELD(kernel_setup_ps), true,
     "the collective kernel's start on the GPU up to its first step, such as 3us"},
    {"proxy_post", HW_KEY_TIME_PS, FIELD(proxy_post_ps), true,
     "the network proxy's work for one step that crosses nodes, such as 1us"},
    {"iterations", HW_KEY_COUNT, FIELD(n_iterations), true,
     "calls a harness times back to back (nccl-tests' -n), such as 20"},
};

const HwKeyTable hw_runtime_key_table = {"models/runtime/ID.ini", "runtime", runtime_keys, G_N_ELEMENTS(runtime_keys)};

void
hw_runtime_free(HwRuntime *runtime)
{
    if (runtime == NULL)
        return;
    g_free(runtime->name);
    g_free(runtime);
}

static bool
check(const HwRuntime *rt, const char *path, GError **error)
{
    const uint64_t ms = UINT64_C(1000000000);
    const struct {
        const char *key;
        uint64_t value;
    } times[] = {
        {"host_issue", rt->host_issue_ps},       {"graph_issue", rt->graph_issue_ps},
        {"launch_latency", rt->launch_latency_ps}, {"kernel_gap", rt->kernel_gap_ps},
        {"graph_kernel_gap", rt->graph_kernel_gap_ps}, {"kernel_setup", rt->kernel_setup_ps},
        {"proxy_post", rt->proxy_post_ps},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(times); i++)
        if (!hw_keys_check_range(path, "runtime", times[i].key, times[i].value, 0, ms, error))
            return false;
    return hw_keys_check_range(path, "runtime", "iterations", rt->n_iterations, 1, 1000000,
                               error);
}

static HwRuntime *
runtime_load(const char *path, const char *data, gsize length, GError **error)
{
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", "runtime", data, length, error);
    if (kf == NULL)
        return NULL;
    g_autoptr(HwRuntime) rt = g_new0(HwRuntime, 1);
    if (!hw_keys_load(kf, path, "runtime", runtime_keys, G_N_ELEMENTS(runtime_keys), rt, error) ||
        !check(rt, path, error))
        return NULL;
    return g_steal_pointer(&rt);
}

HwRuntime *
hw_runtime_load(const char *path, GError **error)
{
    return runtime_load(path, NULL, 0, error);
}

HwRuntime *
hw_runtime_load_data(const char *data, gsize length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return runtime_load(path, data, length, error);
}
