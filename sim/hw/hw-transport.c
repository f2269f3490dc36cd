/* SPDX-License-Identifier: Apache-2.0 */
/* Transport models from models/transport/ID.ini (hw-transport.h). Times
 * are bounded to what one step's software path can cost (up to 1 ms). */
#include "hw/hw-transport.h"

#define FIELD(f) offsetof(HwTransport, f)

static const HwKey transport_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "the transport's name, such as RoCEv2"},
    {"step_latency", HW_KEY_TIME_PS, FIELD(step_latency_ps), true,
     "each side of a message between hosts, beyond the adapter, such as 0ns"},
    {"plugin_latency", HW_KEY_TIME_PS, FIELD(plugin_latency_ps), true,
     "the latency the network plugin reports to NCCL for a device, such as 0us"},
};

const HwKeyTable hw_transport_key_table = {"models/transport/ID.ini", "transport", transport_keys,
                                           G_N_ELEMENTS(transport_keys)};

void
hw_transport_free(HwTransport *transport)
{
    if (transport == NULL)
        return;
    g_free(transport->name);
    g_free(transport);
}

static HwTransport *
transport_load(const char *path, const char *data, gsize length, GError **error)
{
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", "transport", data, length, error);
    if (kf == NULL)
        return NULL;
    g_autoptr(HwTransport) t = g_new0(HwTransport, 1);
    const uint64_t ms = UINT64_C(1000000000);
    if (!hw_keys_load(kf, path, "transport", transport_keys, G_N_ELEMENTS(transport_keys), t,
                      error) ||
        !hw_keys_check_range(path, "transport", "step_latency", t->step_latency_ps, 0, ms, error) ||
        !hw_keys_check_range(path, "transport", "plugin_latency", t->plugin_latency_ps, 0, ms,
                             error))
        return NULL;
    return g_steal_pointer(&t);
}

HwTransport *
hw_transport_load(const char *path, GError **error)
{
    return transport_load(path, NULL, 0, error);
}

HwTransport *
hw_transport_load_data(const char *data, gsize length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return transport_load(path, data, length, error);
}
