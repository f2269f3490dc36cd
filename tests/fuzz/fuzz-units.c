/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target: the unit parser (core-units), every kind of quantity. Each
 * parser must either store a value and set no error, or set an error and
 * leave its output as it was. */
#include <stdlib.h>

#include "core/core-units.h"
#include "fuzz.h"

typedef bool (*UnitsParser)(const char *text, uint64_t *out, GError **error);

static void
check(UnitsParser parse, const char *text)
{
    const uint64_t untouched = UINT64_C(0x5eed5eed5eed5eed);
    uint64_t value = untouched;
    GError *error = NULL;
    bool ok = parse(text, &value, &error);
    if (ok != (error == NULL) || (!ok && value != untouched))
        abort();
    g_clear_error(&error);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_setup();
    static const UnitsParser parsers[] = {
        sim_units_parse_time_ps,
        sim_units_parse_size_bytes,
        sim_units_parse_bandwidth_bytes_per_s,
        sim_units_parse_rate_flops_per_s,
        sim_units_parse_count,
    };
    g_autofree char *text = fuzz_string(data, size);
    for (size_t i = 0; i < G_N_ELEMENTS(parsers); i++)
        check(parsers[i], text);
    return 0;
}
