/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: nccl-tests' output as judge-log reads it (the text table
 * and -J JSON). The reader either returns a log, every test of it with
 * rows that add up and a problem for each malformed part, or NULL with an
 * error; the rows it makes are the suite's schema, a field per column. */
#include <stdlib.h>

#include "fuzz.h"
#include "judge/judge-log.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    const char *text = (const char *)data;
    bool detected = judge_log_detect(text, size);
    GError *error = NULL;
    static const JudgeLogHints hints[] = {
        {0},
        {.system = "dgx-h100", .n_gpus = 16, .n_nodes = 2, .collective = "all_reduce"},
    };
    for (size_t h = 0; h < G_N_ELEMENTS(hints); h++) {
        JudgeLog *log = judge_log_read("fuzz.log", text, size, &hints[h], &error);
        if ((log == NULL) == (error == NULL))
            abort();
        g_clear_error(&error);
        if (log == NULL)
            continue;
        SimCsv *csv = judge_log_table(log);
        for (guint r = 0; r < csv->rows->len; r++)
            if (((GPtrArray *)csv->rows->pdata[r])->len != csv->columns->len)
                abort();
        (void)detected;
        sim_csv_free(csv);
        judge_log_free(log);
    }
    return 0;
}
