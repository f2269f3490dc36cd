/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: a measurement CSV read whole (sim_csv_read_data), and
 * streamed as nvlsim validate reads it, every row read and checked as
 * validate would before simulating it (validate_rows, read only): collective and
 * p2p rows in the schema of collectives.csv, training rows (training.csv)
 * turned into scenarios and loaded. Malformed rows are counted, not
 * printed. */
#include <stdlib.h>

#include "cli/cli-validate.h"
#include "fuzz.h"
#include "hw/hw-models.h"
#include "work/work-model.h"

/* The shipped models, loaded once for every input (training rows are
 * matched against them). */
static GPtrArray *models, *model_ids;

static void
load_models(void)
{
    g_autoptr(GPtrArray) ids = hw_models_ids(hw_models_dir(), "llm", NULL);
    models = g_ptr_array_new_with_free_func((GDestroyNotify)work_model_free);
    model_ids = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; ids != NULL && i < ids->len; i++) {
        WorkModel *m = work_model_load_by_id(ids->pdata[i], NULL, NULL);
        if (m == NULL)
            abort();
        g_ptr_array_add(models, m);
        g_ptr_array_add(model_ids, g_strdup(ids->pdata[i]));
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    if (models == NULL)
        load_models();
    GError *error = NULL;
    SimCsv *csv = sim_csv_read_data((const char *)data, size, "fuzz.csv", &error);
    if ((csv == NULL) != (error != NULL))
        abort();
    g_clear_error(&error);
    if (csv != NULL) {
        for (guint r = 0; r < csv->rows->len; r++)
            if (((GPtrArray *)csv->rows->pdata[r])->len != csv->columns->len)
                abort();
        sim_csv_free(csv);
    }
    /* The same text streamed, as validate reads it. */
    SimCsvStream *rows =
        sim_csv_stream_new_data((const char *)data, size, "fuzz.csv", &error);
    if ((rows == NULL) != (error != NULL))
        abort();
    if (rows != NULL) {
        Validation v;
        validate_init(&v);
        v.read_only = true;
        v.quiet = true;
        v.err = NULL;
        v.models = g_ptr_array_ref(models);
        v.model_ids = g_ptr_array_ref(model_ids);
        if (!validate_rows(&v, rows, &error) && error == NULL)
            abort();
        validate_clear(&v);
        sim_csv_stream_free(rows);
    }
    g_clear_error(&error);
    return 0;
}
