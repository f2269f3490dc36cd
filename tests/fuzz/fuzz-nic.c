/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a NIC model file (hw_nic_load_data); the port link it names
 * is loaded from the shipped models. */
#include <stdlib.h>

#include "fuzz.h"
#include "hw/hw-models.h"
#include "hw/hw-nic.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    HwNic *nic = hw_nic_load_data((const char *)data, size, "fuzz.ini", hw_models_dir(), &error);
    if ((nic == NULL) != (error != NULL) || (nic != NULL && nic->port_link == NULL))
        abort();
    hw_nic_free(nic);
    g_clear_error(&error);
    return 0;
}
