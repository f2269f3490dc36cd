/* SPDX-License-Identifier: Apache-2.0 */
/* The range property of a key table (range-walk.h): the values tried at
 * and around each documented bound, and what each must give. Membership
 * is computed here from the documented fields (min, max, open flags), not
 * by the loader's own test. */
#include "range-walk.h"

#include <math.h>
#include <string.h>

/* Whether x lies in r, by the documented fields. */
static bool
documented_holds(const HwKeyRange *r, double x)
{
    if (isnan(x))
        return false;
    bool above = r->min_open ? x > r->min : x >= r->min;
    bool below = r->max_open ? x < r->max : x <= r->max;
    return above && below;
}

/* The shortest decimal that reads back as x. */
static char *
exact_text(double x)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup(g_ascii_dtostr(buf, sizeof buf, x));
}

/* Texts around bound b: b itself, its neighbours in double, b +- 1e-9,
 * and decimals beyond double's precision that round to b. */
static void
add_around(GPtrArray *texts, double b)
{
    g_ptr_array_add(texts, exact_text(b));
    g_ptr_array_add(texts, exact_text(nextafter(b, -INFINITY)));
    g_ptr_array_add(texts, exact_text(nextafter(b, INFINITY)));
    g_ptr_array_add(texts, exact_text(b - 1e-9));
    g_ptr_array_add(texts, exact_text(b + 1e-9));
    if (b == 0) {
        g_ptr_array_add(texts, g_strdup("-0"));
        g_ptr_array_add(texts, g_strdup("1e-400"));  /* 0 in double */
        g_ptr_array_add(texts, g_strdup("-1e-400")); /* -0 in double */
        g_ptr_array_add(texts, g_strdup("4.9406564584124654e-324"));
    } else {
        g_assert(b == floor(b) && fabs(b) < 1e6);
        /* b - 1e-18 and b + 1e-18: both are b in double. */
        g_ptr_array_add(texts, g_strdup_printf("%.0f.999999999999999999", b - 1));
        g_ptr_array_add(texts, g_strdup_printf("%.0f.000000000000000001", b));
        g_ptr_array_add(texts, g_strdup_printf("%.0f.0000000000000002", b)); /* nextafter up */
    }
}

/* The plain-number property for one key. */
static unsigned
walk_number(const HwKeyTable *t, const HwKey *key, RangeWalkLoad load)
{
    const HwKeyRange *r = hw_key_range(key->kind);
    if (key->kind == HW_KEY_PROBABILITY)
        ck_assert_msg(r->min == 0 && !r->min_open && r->max == 1 && r->max_open,
                      "[%s] %s: a probability's range is not [0, 1)", t->group, key->name);
    if (key->kind == HW_KEY_FRACTION)
        ck_assert_msg(r->min == 0 && r->min_open && r->max == 1 && !r->max_open,
                      "[%s] %s: a share's range is not (0, 1]", t->group, key->name);
    g_autofree char *range = hw_key_range_text(key->kind);
    g_autofree char *out_of_range = g_strdup_printf("is out of range: expected %s", range);
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    add_around(texts, r->min);
    add_around(texts, r->max);
    const char *const extreme[] = {"-1", "2", "1e300", "-1e300", "nan", "inf", "-inf"};
    for (size_t i = 0; i < G_N_ELEMENTS(extreme); i++)
        g_ptr_array_add(texts, g_strdup(extreme[i]));
    g_ptr_array_add(texts, exact_text((r->min + r->max) / 2));
    g_ptr_array_add(texts, g_strdup_printf(" %s ", "0.5")); /* blanks around */
    for (guint i = 0; i < texts->len; i++) {
        const char *text = g_ptr_array_index(texts, i);
        char *end = NULL;
        g_autofree char *word = g_strstrip(g_strdup(text));
        double x = g_ascii_strtod(word, &end);
        g_autoptr(GError) error = NULL;
        bool accepted = load(t, key, text, &error);
        const char *message = error != NULL ? error->message : "";
        if (!isfinite(x) || end == word || *end != '\0') {
            ck_assert_msg(!accepted && strstr(message, "is not a number") != NULL,
                          "[%s] %s = '%s': %s, expected 'is not a number'", t->group, key->name,
                          text, accepted ? "accepted" : message);
        } else if (!documented_holds(r, x)) {
            ck_assert_msg(!accepted && strstr(message, out_of_range) != NULL,
                          "[%s] %s = '%s' (%.17g, outside): %s, expected '%s'", t->group, key->name,
                          text, x, accepted ? "accepted" : message, out_of_range);
        } else if (x == (r->min + r->max) / 2) {
            ck_assert_msg(accepted, "[%s] %s = '%s' (the middle of the range): %s", t->group,
                          key->name, text, message);
        } else {
            g_autofree char *own_rule = g_strdup_printf("%s: ", key->name);
            ck_assert_msg(accepted || (strstr(message, out_of_range) == NULL &&
                                       strstr(message, own_rule) != NULL &&
                                       strstr(message, " leaves ") != NULL),
                          "[%s] %s = '%s' (%.17g, inside): refused: %s", t->group, key->name, text,
                          x, message);
        }
    }
    return texts->len;
}

/* The number at the start of a bound as the range text writes it ("1s",
 * "100MB/s") and its unit. */
static double
split_quantity(const char *text, const char **unit)
{
    char *end = NULL;
    double x = g_ascii_strtod(text, &end);
    *unit = end;
    return x;
}

/* The unit-kind property for one key: its kind's range text is "LO to
 * HI". */
static unsigned
walk_quantity(const HwKeyTable *t, const HwKey *key, RangeWalkLoad load)
{
    g_autofree char *range = hw_key_range_text(key->kind);
    g_autofree char *out_of_range = g_strdup_printf("is out of range: expected %s", range);
    g_auto(GStrv) bounds = g_strsplit(range, " to ", 2);
    ck_assert_msg(g_strv_length(bounds) == 2, "%s: not LO to HI", range);
    const char *lo_unit, *hi_unit;
    double lo = split_quantity(bounds[0], &lo_unit);
    double hi = split_quantity(bounds[1], &hi_unit);
    struct {
        char *text;
        bool outside;
    } tries[] = {
        {g_strdup(bounds[0]), false},
        {g_strdup(bounds[1]), false},
        {g_strdup_printf("%.7g%s", hi * (1 + 1e-6), hi_unit), true},
        {lo > 0 ? g_strdup_printf("%.7g%s", lo * (1 - 1e-6), lo_unit) : NULL, true},
    };
    unsigned n = 0;
    for (size_t i = 0; i < G_N_ELEMENTS(tries); i++) {
        if (tries[i].text == NULL)
            continue;
        g_autoptr(GError) error = NULL;
        bool accepted = load(t, key, tries[i].text, &error);
        const char *message = error != NULL ? error->message : "";
        if (tries[i].outside)
            ck_assert_msg(!accepted && strstr(message, out_of_range) != NULL,
                          "[%s] %s = %s (outside): %s, expected '%s'", t->group, key->name,
                          tries[i].text, accepted ? "accepted" : message, out_of_range);
        else
            ck_assert_msg(accepted || strstr(message, out_of_range) == NULL,
                          "[%s] %s = %s (a bound): refused as out of range: %s", t->group,
                          key->name, tries[i].text, message);
        g_free(tries[i].text);
        n++;
    }
    return n;
}

unsigned
range_walk(const HwKeyTable *t, RangeWalkLoad load)
{
    unsigned n = 0;
    for (size_t k = 0; k < t->n_keys; k++) {
        const HwKey *key = &t->keys[k];
        if (hw_key_range(key->kind) == NULL)
            continue;
        if (key->kind == HW_KEY_PROBABILITY || key->kind == HW_KEY_FRACTION)
            n += walk_number(t, key, load);
        else
            n += walk_quantity(t, key, load);
    }
    return n;
}
