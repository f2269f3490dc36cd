/* SPDX-License-Identifier: Apache-2.0 */
/* Link utilization summed for a plot (report-links.h), on a hand-built
 * graph with loads set bin by bin: classes named by kind and ends, both
 * directions in one class, unused links left out, a class's value the
 * rate-weighted mean of its used links (each capped at its rate), the
 * busiest links in order with ties by id, n_top past the used count, and
 * the CSV's header, rows and closing row.
 */
#include <glib/gstdio.h>
#include <string.h>

#include "report-suites.h"
#include "report/report-links.h"

/* 100 GB/s, and twice that: bins of 1 us carry 100 and 200 kB at full
 * rate (the table below counts in kB). */
static const HwLink nvlink = {
    .name = "test nvlink",
    .kind = HW_LINK_NVLINK,
    .bytes_per_s = UINT64_C(100000000000),
    .rx_buffer_bytes = 1 << 16,
    .credit_bytes = 16,
};
static const HwLink pcie = {
    .name = "test pcie",
    .kind = HW_LINK_PCIE,
    .bytes_per_s = UINT64_C(200000000000),
    .rx_buffer_bytes = 1 << 16,
    .credit_bytes = 16,
};
static const HwSwitch nvswitch = {
    .name = "test switch",
    .kind = HW_SWITCH_NVSWITCH,
    .n_ports = 8,
    .port_buffer_bytes = 1 << 16,
};

enum { BIN_PS = 1000000, N_BINS = 4, KB = 1000 };

/* GPU 0 and 1 to an NVSwitch (links 0-3: gpu0->sw, sw->gpu0, gpu1->sw,
 * sw->gpu1), GPU 0 to a NIC over PCIe (links 4, 5). */
static TopoGraph *
graph_new(void)
{
    TopoGraph *g = topo_graph_new();
    uint32_t gpu0 = topo_graph_add_vertex(g, TOPO_GPU, 0, NULL);
    uint32_t gpu1 = topo_graph_add_vertex(g, TOPO_GPU, 0, NULL);
    uint32_t sw = topo_graph_add_vertex(g, TOPO_NVSWITCH, 0, &nvswitch);
    uint32_t nic = topo_graph_add_vertex(g, TOPO_NIC, 0, NULL);
    topo_graph_add_bundle(g, gpu0, sw, &nvlink, 1);
    topo_graph_add_bundle(g, gpu1, sw, &nvlink, 1);
    topo_graph_add_bundle(g, nic, gpu0, &pcie, 1);
    return g;
}

/* kB per bin of each link; link 2 (gpu1 -> switch) carries nothing. */
static const double bytes[6][N_BINS] = {
    {100, 50, 0, 0},   /* gpu0 -> sw: full, half: mean 0.375 */
    {50, 50, 50, 250}, /* sw -> gpu0: its last bin over the rate, capped: mean 0.625 */
    {0, 0, 0, 0},      {0, 0, 25, 25}, /* sw -> gpu1: mean 0.125 */
    {200, 0, 0, 0},                    /* nic -> gpu0: mean 0.25 */
    {0, 0, 0, 200},                    /* gpu0 -> nic: mean 0.25, a tie broken by id */
};

static NetLinkLoad *
load_new(void)
{
    NetLinkLoad *load = net_link_load_new(6, BIN_PS, 16);
    for (uint32_t l = 0; l < 6; l++)
        for (uint32_t k = 0; k < N_BINS; k++)
            load->wire_bytes[l * load->max_bins + k] = bytes[l][k] * KB;
    load->n_bins = N_BINS;
    return load;
}

static const ReportLinkSeries *
series(const ReportLinkSummary *s, guint i)
{
    ck_assert_uint_lt(i, s->series->len);
    return s->series->pdata[i];
}

START_TEST(classes_and_busiest)
{
    g_autoptr(TopoGraph) g = graph_new();
    g_autoptr(NetLinkLoad) load = load_new();
    g_autoptr(ReportLinkSummary) s = report_link_summary_new(g, load, 4500000, 3);
    ck_assert_uint_eq(s->n_used, 5);
    ck_assert_uint_eq(s->n_classes, 2);
    ck_assert_uint_eq(s->series->len, 5);
    ck_assert_uint_eq(s->end_ps, 4500000);
    ck_assert_str_eq(series(s, 0)->name, "class nvlink gpu-nvswitch");
    ck_assert_uint_eq(series(s, 0)->n_links, 3);
    ck_assert_str_eq(series(s, 1)->name, "class pcie gpu-nic");
    ck_assert_uint_eq(series(s, 1)->n_links, 2);
    /* nvlink: (100 + 50 + 0) / 300, (50 + 50 + 0) / 300, (0 + 50 + 25) / 300,
     * (0 + 100 capped + 25) / 300. */
    const double nv[N_BINS] = {0.5, 1.0 / 3, 0.25, 125.0 / 300};
    const double pc[N_BINS] = {0.5, 0, 0, 0.5};
    for (int k = 0; k < N_BINS; k++) {
        ck_assert_double_eq_tol(series(s, 0)->utilization[k], nv[k], 1e-12);
        ck_assert_double_eq_tol(series(s, 1)->utilization[k], pc[k], 1e-12);
    }
    const char *const busiest[] = {"link node0 nvswitch0 -> node0 gpu0",
                                   "link node0 gpu0 -> node0 nvswitch0",
                                   "link node0 nic0 -> node0 gpu0"};
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(series(s, 2 + i)->name, busiest[i]);
        ck_assert_uint_eq(series(s, 2 + i)->n_links, 1);
    }
    ck_assert_double_eq_tol(series(s, 2)->utilization[3], 1.0, 1e-12);
    ck_assert_double_eq_tol(series(s, 3)->utilization[1], 0.5, 1e-12);
}
END_TEST

START_TEST(top_past_the_used_links)
{
    g_autoptr(TopoGraph) g = graph_new();
    g_autoptr(NetLinkLoad) load = load_new();
    g_autoptr(ReportLinkSummary) all = report_link_summary_new(g, load, 0, 64);
    ck_assert_uint_eq(all->series->len, 2 + 5);
    /* The step ends where the bins do when it is given as earlier. */
    ck_assert_uint_eq(all->end_ps, N_BINS * BIN_PS);
    g_autoptr(ReportLinkSummary) none = report_link_summary_new(g, load, 0, 0);
    ck_assert_uint_eq(none->series->len, 2);
}
END_TEST

START_TEST(csv_columns_and_rows)
{
    g_autoptr(TopoGraph) g = graph_new();
    g_autoptr(NetLinkLoad) load = load_new();
    g_autoptr(ReportLinkSummary) s = report_link_summary_new(g, load, 4500000, 1);
    g_autofree char *dir = g_dir_make_tmp("test-report-links-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "links.csv", NULL);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(report_link_summary_write(s, path, &error), "%s", error ? error->message : "");
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    g_unlink(path);
    g_rmdir(dir);
    ck_assert_str_eq(text, "time_s,class nvlink gpu-nvswitch,class pcie gpu-nic,"
                           "link node0 nvswitch0 -> node0 gpu0\n"
                           "0.000000000,0.500000,0.500000,0.500000\n"
                           "0.000001000,0.333333,0.000000,0.500000\n"
                           "0.000002000,0.250000,0.000000,0.500000\n"
                           "0.000003000,0.416667,0.500000,1.000000\n"
                           "0.000004500,0.000000,0.000000,0.000000\n");
}
END_TEST

Suite *
report_links_suite(void)
{
    Suite *s = suite_create("report-links");
    TCase *tc = tcase_create("summary");
    tcase_add_test(tc, classes_and_busiest);
    tcase_add_test(tc, top_past_the_used_links);
    tcase_add_test(tc, csv_columns_and_rows);
    suite_add_tcase(s, tc);
    return s;
}
