/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a switch model file (hw_switch_load_data); the port link
 * it names is loaded from the shipped models. */
#include <stdlib.h>

#include "fuzz.h"
#include "hw/hw-models.h"
#include "hw/hw-switch.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    HwSwitch *sw =
        hw_switch_load_data((const char *)data, size, "fuzz.ini", hw_models_dir(), &error);
    if ((sw == NULL) != (error != NULL) || (sw != NULL && sw->link == NULL))
        abort();
    hw_switch_free(sw);
    g_clear_error(&error);
    return 0;
}
