/* SPDX-License-Identifier: Apache-2.0 */
/* A job's GPUs on hosts and NVLink domains (topo-place.h). */
#include "topo/topo-place.h"

#include <string.h>

#include "core/core-units.h"

uint32_t
topo_place_host_gpus(const HwSystem *system)
{
    return MAX(system->n_gpus / MAX(system->n_hosts, 1), 1);
}

static bool fail(TopoPlaceField *bad, TopoPlaceField field, GError **error, const char *format, ...)
    G_GNUC_PRINTF(4, 5);

static bool
fail(TopoPlaceField *bad, TopoPlaceField field, GError **error, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *text = g_strdup_vprintf(format, args);
    va_end(args);
    *bad = field;
    g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, text);
    g_free(text);
    return false;
}

/* The GPUs a host takes (*k) from what the ask states, 0 when it states
 * none of devices, gpus_per_host and hosts. */
static bool
host_gpus(const HwSystem *sys, const TopoPlaceAsk *ask, uint32_t *k, TopoPlaceField *bad,
          GError **error)
{
    uint32_t per_host = topo_place_host_gpus(sys);
    TopoPlaceField from = TOPO_PLACE_GPUS_PER_HOST;
    *k = 0;
    if (ask->devices != NULL) {
        from = TOPO_PLACE_DEVICES;
        g_autofree bool *seen = g_new0(bool, per_host);
        for (uint32_t i = 0; i < ask->n_devices; i++) {
            if (ask->devices[i] >= per_host || seen[ask->devices[i]])
                return fail(bad, TOPO_PLACE_DEVICES, error, "GPU %u %s of a host of %s (0 to %u)",
                            ask->devices[i],
                            ask->devices[i] >= per_host ? "is not one" : "is listed twice among",
                            sys->id, per_host - 1);
            seen[ask->devices[i]] = true;
        }
        *k = ask->n_devices;
    }
    if (ask->gpus_per_host != 0) {
        if (ask->gpus_per_host > per_host)
            return fail(bad, TOPO_PLACE_GPUS_PER_HOST, error,
                        "%u GPUs a host: expected 1 to %u (%s's GPUs per host)", ask->gpus_per_host,
                        per_host, sys->id);
        if (*k != 0 && *k != ask->gpus_per_host)
            return fail(bad, TOPO_PLACE_GPUS_PER_HOST, error,
                        "%u GPUs a host, but the device list names %u", ask->gpus_per_host, *k);
        *k = ask->gpus_per_host;
        from = TOPO_PLACE_GPUS_PER_HOST;
    }
    if (ask->n_hosts != 0 && ask->n_gpus != 0) {
        if (ask->n_gpus % ask->n_hosts != 0)
            return fail(bad, TOPO_PLACE_HOSTS, error,
                        "%u GPUs do not split evenly over %u hosts: expected a divisor of %u",
                        ask->n_gpus, ask->n_hosts, ask->n_gpus);
        uint32_t each = ask->n_gpus / ask->n_hosts;
        if (each > per_host)
            return fail(bad, TOPO_PLACE_HOSTS, error,
                        "%u GPUs on %u hosts is %u a host, more than the %u of a %s host: "
                        "expected %u hosts or more",
                        ask->n_gpus, ask->n_hosts, each, per_host, sys->id,
                        (ask->n_gpus + per_host - 1) / per_host);
        if (*k != 0 && *k != each)
            return fail(bad, TOPO_PLACE_HOSTS, error,
                        "%u GPUs on %u hosts is %u a host, but %u GPUs a host are asked for",
                        ask->n_gpus, ask->n_hosts, each, *k);
        *k = each;
    }
    if (*k != 0 && ask->n_gpus % *k != 0)
        return fail(bad, from, error,
                    "%u GPUs are not whole hosts of %u GPUs each: expected a divisor of %u",
                    ask->n_gpus, *k, ask->n_gpus);
    return true;
}

/* The domains the hosts spread over (*d), and their hosts each (*h, the
 * most where they are listed). */
static bool
domains(const HwSystem *sys, const TopoPlaceAsk *ask, uint32_t n_hosts, uint32_t *d, uint32_t *h,
        TopoPlaceField *bad, GError **error)
{
    uint32_t room = MAX(sys->n_hosts, 1);
    if (ask->domain_hosts != NULL) {
        *d = ask->n_domains;
        *h = 0;
        for (uint32_t i = 0; i < *d; i++) {
            if (ask->domain_hosts[i] < 1 || ask->domain_hosts[i] > room)
                return fail(bad, TOPO_PLACE_DOMAINS, error,
                            "NVLink domain %u is asked for %u hosts: expected 1 to the %u hosts "
                            "of a %s domain",
                            i + 1, ask->domain_hosts[i], room, sys->id);
            *h = MAX(*h, ask->domain_hosts[i]);
        }
        return true;
    }
    *d = ask->n_domains != 0 ? ask->n_domains : (n_hosts + room - 1) / room;
    if (n_hosts % *d != 0) {
        if (ask->n_domains != 0)
            return fail(bad, TOPO_PLACE_DOMAINS, error,
                        "%u hosts do not split evenly over %u NVLink domains: expected a "
                        "divisor of %u, or the hosts of each domain listed",
                        n_hosts, *d, n_hosts);
        return fail(bad,
                    ask->n_hosts != 0         ? TOPO_PLACE_HOSTS
                    : ask->gpus_per_host != 0 ? TOPO_PLACE_GPUS_PER_HOST
                                              : TOPO_PLACE_GPUS,
                    error,
                    "%u hosts need %u NVLink domains of %s (%u hosts each) and do not split "
                    "evenly over them: expected a number of domains dividing %u, or the hosts "
                    "of each domain listed",
                    n_hosts, *d, sys->id, room, n_hosts);
    }
    *h = n_hosts / *d;
    if (*h > room)
        return fail(bad, TOPO_PLACE_DOMAINS, error,
                    "%u hosts over %u NVLink domain%s is %u a domain, more than the %u of a %s "
                    "domain: expected %u domains or more",
                    n_hosts, *d, *d == 1 ? "" : "s", *h, room, sys->id,
                    (n_hosts + room - 1) / room);
    return true;
}

bool
topo_place(const HwSystem *system, const TopoPlaceAsk *ask_in, TopoPlace *out, TopoPlaceField *bad,
           GError **error)
{
    *out = (TopoPlace){0};
    TopoPlaceAsk ask = *ask_in;
    uint32_t per_host = topo_place_host_gpus(system);
    uint32_t room = MAX(system->n_hosts, 1);
    uint32_t k;
    if (ask.domain_hosts != NULL) {
        uint64_t listed = 0;
        for (uint32_t i = 0; i < ask.n_domains; i++)
            listed += ask.domain_hosts[i];
        if (ask.n_hosts != 0 && ask.n_hosts != listed)
            return fail(bad, TOPO_PLACE_HOSTS, error,
                        "%u hosts, but the NVLink domains listed hold %" G_GUINT64_FORMAT
                        ": expected %" G_GUINT64_FORMAT " hosts",
                        ask.n_hosts, listed, listed);
        if (listed > TOPO_PLACE_MAX_GPUS)
            return fail(bad, TOPO_PLACE_DOMAINS, error,
                        "the NVLink domains listed hold %" G_GUINT64_FORMAT
                        " hosts, more than a job may take (%u GPUs)",
                        listed, TOPO_PLACE_MAX_GPUS);
        ask.n_hosts = (uint32_t)listed;
    }
    if (!host_gpus(system, &ask, &k, bad, error))
        return false;
    if (ask.n_gpus == 0) {
        uint64_t hosts = ask.n_hosts != 0 ? ask.n_hosts : (uint64_t)room * MAX(ask.n_domains, 1);
        uint64_t gpus = hosts * (k != 0 ? k : per_host);
        if (gpus > TOPO_PLACE_MAX_GPUS)
            return fail(bad, ask.n_hosts != 0 ? TOPO_PLACE_HOSTS : TOPO_PLACE_DOMAINS, error,
                        "%" G_GUINT64_FORMAT " hosts of %u GPUs are more than the %u GPUs a job "
                        "may take",
                        hosts, k != 0 ? k : per_host, TOPO_PLACE_MAX_GPUS);
        ask.n_gpus = (uint32_t)gpus;
        if (!host_gpus(system, &ask, &k, bad, error))
            return false;
    }
    out->n_gpus = ask.n_gpus;
    out->hosts_filled = k == 0;
    if (k == 0 && ask.n_domains <= 1 && ask.domain_hosts == NULL && ask.n_gpus <= system->n_gpus) {
        /* One domain, its GPUs in order: hosts full but the last. */
        out->n_hosts = (ask.n_gpus + per_host - 1) / per_host;
        out->gpus_per_host = MIN(ask.n_gpus, per_host);
        out->n_domains = 1;
        out->hosts_per_domain = out->n_hosts;
        out->domains_spread = ask.n_domains == 0;
        out->per_domain = ask.n_gpus;
        out->local = g_new(uint32_t, ask.n_gpus);
        for (uint32_t i = 0; i < ask.n_gpus; i++)
            out->local[i] = i;
        return true;
    }
    if (k == 0) {
        if (ask.n_gpus % per_host != 0)
            return fail(bad, TOPO_PLACE_GPUS, error,
                        "%u GPUs are not whole hosts of %s (%u GPUs each): expected a multiple "
                        "of %u, or the hosts (nodes) or GPUs a host they take",
                        ask.n_gpus, system->id, per_host, per_host);
        k = per_host;
    }
    uint32_t n_hosts = ask.n_gpus / k, d = 0, h = 0;
    if (!domains(system, &ask, n_hosts, &d, &h, bad, error))
        return false;
    out->n_hosts = n_hosts;
    out->gpus_per_host = k;
    out->n_domains = d;
    out->hosts_per_domain = h;
    out->domains_spread = ask.n_domains == 0;
    out->per_domain = h * k;
    out->local = g_new(uint32_t, out->per_domain);
    for (uint32_t i = 0; i < h; i++)
        for (uint32_t j = 0; j < k; j++)
            out->local[i * k + j] = i * per_host + (ask.devices ? ask.devices[j] : j);
    bool differ = false;
    for (uint32_t i = 0; ask.domain_hosts != NULL && i < d; i++)
        differ = differ || ask.domain_hosts[i] != h;
    if (differ) {
        out->domain_ranks = g_new(uint32_t, d);
        for (uint32_t i = 0; i < d; i++)
            out->domain_ranks[i] = ask.domain_hosts[i] * k;
    }
    return true;
}

bool
topo_place_parse_domain_hosts(const char *text, uint32_t max, uint32_t **hosts, uint32_t *n)
{
    *hosts = NULL;
    *n = 0;
    if (text == NULL || strpbrk(text, ",+") == NULL)
        return false;
    g_auto(GStrv) parts = g_strsplit_set(text, ",+", -1);
    uint32_t count = g_strv_length(parts);
    g_autofree uint32_t *list = g_new(uint32_t, count);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t v;
        g_autofree char *item = g_strstrip(g_strdup(parts[i]));
        if (!sim_units_parse_count(item, &v, NULL) || v < 1 || v > max)
            return true;
        list[i] = (uint32_t)v;
    }
    *hosts = g_steal_pointer(&list);
    *n = count;
    return true;
}

uint32_t
topo_place_domain_ranks(const TopoPlace *place, uint32_t d)
{
    return place->domain_ranks != NULL ? place->domain_ranks[d] : place->per_domain;
}

void
topo_place_clear(TopoPlace *place)
{
    g_clear_pointer(&place->local, g_free);
    g_clear_pointer(&place->domain_ranks, g_free);
}
