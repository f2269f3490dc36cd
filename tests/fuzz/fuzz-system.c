/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a system file (hw_system_load_data); the parts it names are
 * loaded from the shipped models. A loaded system's pairs must be in range
 * and agree with hw_system_pair_links. */
#include <stdlib.h>

#include "fuzz.h"
#include "hw/hw-models.h"
#include "hw/hw-system.h"

static void
check_pairs(const HwSystem *system)
{
    for (uint32_t i = 0; i < system->n_pairs; i++) {
        const HwGpuPair *p = &system->pairs[i];
        if (p->a >= p->b || p->b >= system->n_gpus ||
            hw_system_pair_links(system, p->b, p->a) != p->n_links)
            abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    HwSystem *system =
        hw_system_load_data((const char *)data, size, "fuzz.ini", hw_models_dir(), &error);
    if ((system == NULL) != (error != NULL))
        abort();
    if (system != NULL)
        check_pairs(system);
    hw_system_free(system);
    g_clear_error(&error);
    return 0;
}
