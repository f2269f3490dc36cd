/* SPDX-License-Identifier: Apache-2.0 */
/* Parsing quantities with units into integer base units.
 *
 * A number is read as an exact decimal (up to 18 significant digits and a
 * power of ten), then multiplied by the unit's factor, a ratio of integers,
 * in 128-bit arithmetic: "0.1ns" is exactly 100 ps and "400Gbit/s" exactly
 * 50e9 B/s, with no binary floating point on the way.
 */
#include "core/core-units.h"

#include <stdarg.h>
#include <string.h>

G_DEFINE_QUARK(sim - units - error - quark, sim_units_error)

typedef struct Unit {
    const char *name;
    uint64_t num; /* base units per unit = num / den */
    uint64_t den;
} Unit;

typedef struct Quantity {
    const char *what;    /* "time", for messages */
    const char *example; /* "250ns" */
    const char *base;    /* "bytes": the integer unit, for messages */
    const Unit *units;   /* NULL-terminated; NULL table: a bare count */
    bool whole;          /* must come to a whole number of base units */
    bool positive;       /* zero is an error */
} Quantity;

static const Unit time_units[] = {
    {"ps", 1, 1},
    {"ns", 1000, 1},
    {"us", 1000000, 1},
    {"\xc2\xb5s", 1000000, 1}, /* µs */
    {"ms", UINT64_C(1000000000), 1},
    {"s", UINT64_C(1000000000000), 1},
    {NULL, 0, 0},
};

static const Unit size_units[] = {
    {"B", 1, 1},
    {"KB", 1000, 1},
    {"kB", 1000, 1},
    {"MB", UINT64_C(1000000), 1},
    {"GB", UINT64_C(1000000000), 1},
    {"TB", UINT64_C(1000000000000), 1},
    {"KiB", UINT64_C(1) << 10, 1},
    {"MiB", UINT64_C(1) << 20, 1},
    {"GiB", UINT64_C(1) << 30, 1},
    {"TiB", UINT64_C(1) << 40, 1},
    {NULL, 0, 0},
};

static const Unit bandwidth_units[] = {
    {"B/s", 1, 1},
    {"KB/s", 1000, 1},
    {"kB/s", 1000, 1},
    {"MB/s", UINT64_C(1000000), 1},
    {"GB/s", UINT64_C(1000000000), 1},
    {"TB/s", UINT64_C(1000000000000), 1},
    {"KiB/s", UINT64_C(1) << 10, 1},
    {"MiB/s", UINT64_C(1) << 20, 1},
    {"GiB/s", UINT64_C(1) << 30, 1},
    {"TiB/s", UINT64_C(1) << 40, 1},
    {"bit/s", 1, 8},
    {"kbit/s", 1000, 8},
    {"Mbit/s", UINT64_C(1000000), 8},
    {"Gbit/s", UINT64_C(1000000000), 8},
    {"Tbit/s", UINT64_C(1000000000000), 8},
    {"kb/s", 1000, 8},
    {"Mb/s", UINT64_C(1000000), 8},
    {"Gb/s", UINT64_C(1000000000), 8},
    {"Tb/s", UINT64_C(1000000000000), 8},
    {NULL, 0, 0},
};

static const Unit flops_units[] = {
    {"FLOP/s", 1, 1},
    {"MFLOP/s", UINT64_C(1000000), 1},
    {"GFLOP/s", UINT64_C(1000000000), 1},
    {"TFLOP/s", UINT64_C(1000000000000), 1},
    {"PFLOP/s", UINT64_C(1000000000000000), 1},
    {NULL, 0, 0},
};

static const Quantity time_quantity = {"time", "250ns", "ps", time_units, false, false};
static const Quantity size_quantity = {"size", "4MiB", "bytes", size_units, true, false};
static const Quantity bandwidth_quantity = {
    "bandwidth", "450GB/s or 400Gbit/s", "B/s", bandwidth_units, false, true};
static const Quantity flops_quantity = {"rate", "989TFLOP/s", "FLOP/s", flops_units, false, true};
static const Quantity count_quantity = {"count", "100000 or 1e5", "", NULL, true, false};

/* A decimal number: mantissa * 10^exp10. */
typedef struct Decimal {
    uint64_t mantissa;
    int exp10;
    bool truncated; /* a non-zero digit past the 18th was dropped */
} Decimal;

/* Reads [digits][.digits][e[+-]digits] at p; returns the end, or NULL when
 * there is no digit. Digits past the 18th significant one are dropped (a
 * relative error below 1e-17) and flagged, so that quantities that must be
 * whole can refuse them. */
static const char *
read_decimal(const char *p, Decimal *d)
{
    bool any_digit = false;
    bool in_fraction = false;
    d->mantissa = 0;
    d->exp10 = 0;
    d->truncated = false;
    for (;; p++) {
        if (*p == '.' && !in_fraction) {
            in_fraction = true;
            continue;
        }
        if (!g_ascii_isdigit(*p))
            break;
        any_digit = true;
        if (d->mantissa < UINT64_C(100000000000000000)) {
            d->mantissa = d->mantissa * 10 + (uint64_t)(*p - '0');
            d->exp10 -= in_fraction;
        } else {
            d->exp10 += !in_fraction;
            d->truncated |= *p != '0';
        }
    }
    if (!any_digit)
        return NULL;

    bool has_exp =
        (*p == 'e' || *p == 'E') &&
        (g_ascii_isdigit(p[1]) || ((p[1] == '+' || p[1] == '-') && g_ascii_isdigit(p[2])));
    if (has_exp) {
        p++;
        int sign = *p == '-' ? -1 : 1;
        if (*p == '+' || *p == '-')
            p++;
        int e = 0;
        for (; g_ascii_isdigit(*p); p++)
            if (e < 100000)
                e = e * 10 + (*p - '0');
        d->exp10 += sign * e;
    }
    return p;
}

static char *
unit_list(const Quantity *q)
{
    GString *s = g_string_new(NULL);
    for (const Unit *u = q->units; u->name != NULL; u++)
        g_string_append_printf(s, "%s%s", s->len ? ", " : "", u->name);
    return g_string_free(s, FALSE);
}

static bool G_GNUC_PRINTF(4, 5)
    fail(GError **error, SimUnitsError code, const Quantity *q, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    g_autofree char *msg = g_strdup_vprintf(fmt, args);
    va_end(args);
    g_autofree char *units = q->units ? unit_list(q) : NULL;
    g_set_error(error, SIM_UNITS_ERROR, code, "%s: expected a %s such as %s%s%s%s", msg, q->what,
                q->example, units ? " (units: " : "", units ? units : "", units ? ")" : "");
    return false;
}

static const Unit *
find_unit(const Quantity *q, const char *name)
{
    static const Unit none = {"", 1, 1};
    if (q->units == NULL)
        return *name == '\0' ? &none : NULL;
    for (const Unit *u = q->units; u->name != NULL; u++)
        if (strcmp(u->name, name) == 0)
            return u;
    return NULL;
}

/* value = d * unit, rounded to nearest (or exact when q->whole). */
static bool
scale(const Quantity *q, const char *text, const Decimal *d, const Unit *u, uint64_t *out,
      GError **error)
{
    const unsigned __int128 limit = (unsigned __int128)UINT64_MAX * u->den;
    unsigned __int128 num = (unsigned __int128)d->mantissa * u->num;
    unsigned __int128 den = u->den;

    /* num < 10^18 * 10^15 here; past limit, one more factor of 10 is
     * already out of range, so the product never overflows 128 bits. */
    for (int e = d->exp10; e > 0 && num != 0; e--) {
        if (num > limit)
            return fail(error, SIM_UNITS_ERROR_RANGE, q, "'%s' is too large", text);
        num *= 10;
    }
    /* Past 10^36 the denominator exceeds any numerator (< 10^34): the value
     * rounds to zero with a remainder. */
    bool tiny = false;
    for (int e = d->exp10; e < 0 && !tiny; e++) {
        tiny = den > (unsigned __int128)1e36;
        den *= tiny ? 1 : 10;
    }
    if (q->whole && d->truncated)
        return fail(error, SIM_UNITS_ERROR_RANGE, q, "'%s' has more than 18 significant digits",
                    text);
    unsigned __int128 quotient = tiny ? 0 : num / den;
    unsigned __int128 remainder = tiny ? num : num % den;
    if (q->whole && remainder != 0)
        return fail(error, SIM_UNITS_ERROR_RANGE, q, "'%s' is not a whole number%s%s", text,
                    q->units ? " of " : "", q->units ? q->base : "");
    if (!tiny && 2 * remainder >= den)
        quotient++;
    if (quotient > UINT64_MAX)
        return fail(error, SIM_UNITS_ERROR_RANGE, q, "'%s' is too large", text);
    if (q->positive && quotient == 0)
        return fail(error, SIM_UNITS_ERROR_RANGE, q, "'%s' is not positive (below 1 %s)", text,
                    q->base);
    *out = (uint64_t)quotient;
    return true;
}

static bool
parse(const Quantity *q, const char *text, uint64_t *out, GError **error)
{
    g_return_val_if_fail(text != NULL, false);

    const char *p = text;
    while (g_ascii_isspace(*p))
        p++;
    if (*p == '-')
        return fail(error, SIM_UNITS_ERROR_RANGE, q, "'%s' is negative", text);
    Decimal d;
    const char *rest = read_decimal(p, &d);
    if (rest == NULL)
        return fail(error, SIM_UNITS_ERROR_SYNTAX, q, "'%s' is not a number", text);

    while (g_ascii_isspace(*rest))
        rest++;
    g_autofree char *unit_name = g_strdup(rest);
    g_strchomp(unit_name);
    if (q->units != NULL && *unit_name == '\0')
        return fail(error, SIM_UNITS_ERROR_UNIT, q, "'%s' has no unit", text);

    const Unit *u = find_unit(q, unit_name);
    if (u == NULL && q->units == NULL)
        return fail(error, SIM_UNITS_ERROR_SYNTAX, q, "'%s' is not a plain number", text);
    if (u == NULL) {
        const char *hint = g_str_has_suffix(unit_name, "bps") || g_str_has_suffix(unit_name, "Bps")
                               ? "; write bits as Gbit/s and bytes as GB/s"
                               : "";
        return fail(error, SIM_UNITS_ERROR_UNIT, q, "'%s' has an unknown unit '%s'%s", text,
                    unit_name, hint);
    }
    return scale(q, text, &d, u, out, error);
}

bool
sim_units_parse_time_ps(const char *text, uint64_t *out_ps, GError **error)
{
    return parse(&time_quantity, text, out_ps, error);
}

bool
sim_units_parse_size_bytes(const char *text, uint64_t *out_bytes, GError **error)
{
    return parse(&size_quantity, text, out_bytes, error);
}

bool
sim_units_parse_bandwidth_bytes_per_s(const char *text, uint64_t *out_bytes_per_s, GError **error)
{
    return parse(&bandwidth_quantity, text, out_bytes_per_s, error);
}

bool
sim_units_parse_rate_flops_per_s(const char *text, uint64_t *out_flops_per_s, GError **error)
{
    return parse(&flops_quantity, text, out_flops_per_s, error);
}

bool
sim_units_parse_count(const char *text, uint64_t *out, GError **error)
{
    return parse(&count_quantity, text, out, error);
}
