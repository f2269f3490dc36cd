/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a transformer model file (work_model_load_data), and the
 * parameter and FLOP counts of a loaded model (which the loader's bounds
 * keep within uint64_t). */
#include <stdlib.h>

#include "fuzz.h"
#include "work/work-model.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    GError *error = NULL;
    WorkModel *model = work_model_load_data((const char *)data, size, "fuzz.ini", &error);
    if ((model == NULL) != (error != NULL))
        abort();
    if (model != NULL && (work_model_params(model) == 0 ||
                          work_model_flops_per_token(model, model->seq_len, true) == 0))
        abort();
    work_model_free(model);
    g_clear_error(&error);
    return 0;
}
