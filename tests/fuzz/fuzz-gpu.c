/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a GPU model file (hw_gpu_load_data). */
#include <stdlib.h>

#include "fuzz.h"
#include "hw/hw-gpu.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    HwGpu *gpu = hw_gpu_load_data((const char *)data, size, "fuzz.ini", &error);
    if ((gpu == NULL) != (error != NULL))
        abort();
    hw_gpu_free(gpu);
    g_clear_error(&error);
    return 0;
}
