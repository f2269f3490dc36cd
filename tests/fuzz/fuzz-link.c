/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a link model file (hw_link_load_data), and the payload rate
 * of a loaded link. */
#include <stdlib.h>

#include "fuzz.h"
#include "hw/hw-link.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    HwLink *link = hw_link_load_data((const char *)data, size, "fuzz.ini", &error);
    if ((link == NULL) != (error != NULL))
        abort();
    if (link != NULL) {
        double rate = hw_link_payload_bytes_per_s(link, link->ce_payload_bytes);
        if (!(rate > 0) || rate > (double)link->bytes_per_s)
            abort();
    }
    hw_link_free(link);
    g_clear_error(&error);
    return 0;
}
