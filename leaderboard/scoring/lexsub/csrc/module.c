/* LS07/CoInCo's hot loops at C speed, each computing exactly what the Python definition
 * computes (the same floating-point operations in the same order):
 * - a usual RANKED file read as a whole (ranked.py parse_ranked), its pool check
 *   (validation.py _pool_counts) and GAP (gap.py gap_numerator);
 * - score.pl's best/oot tallies of .best/.oot lines (scorepl.py score_columns), its count of
 *   .oot lines with duplicates (repeats.py oot_repeats), and Jabbari et al.'s per-instance
 *   values (jabbari_rows.py jabbari_values).
 * A function returns None (or False) where its input is not of the shape it handles (a score
 * Python 2 and 3 read differently, a repeated key, a NaN score, text that is not latin-1...):
 * the caller then takes the Python path, which is the definition. See native.py. */

#include "native.h"

static PyMethodDef methods[] = {
    {"parse_ranked", lexsub_parse_ranked, METH_VARARGS,
     "parse_ranked(data, max_entries, max_lines, max_chars) -> dict | None"},
    {"gap_values", lexsub_gap_values, METH_VARARGS,
     "gap_values(ranked, target_ids, gap_gold) -> list[float] | None"},
    {"coverage", lexsub_coverage, METH_VARARGS,
     "coverage(ranked, target_ids, pools, gold_maps, distinct) -> (outside, outside_gold, "
     "left_out)"},
    {"jabbari_rows", lexsub_jabbari_rows, METH_VARARGS,
     "jabbari_rows(item_ids, counts, totals, coverage, first) -> list[tuple] | None"},
    {"scorepl_columns", lexsub_scorepl_columns, METH_VARARGS,
     "scorepl_columns(matches, best, norms, modes, row_of, attempted, credits, mode_attempted, "
     "mode_hit) -> bool"},
    {"oot_repeats", lexsub_oot_repeats, METH_VARARGS,
     "oot_repeats(lines, matches, norms) -> list[(number, item)] | None"},
    {"parse_lines", lexsub_parse_lines, METH_VARARGS,
     "parse_lines(data, max_entries, max_lines, max_chars, line_match) -> tuple | None"},
    {"first_answers", lexsub_first_answers, METH_VARARGS,
     "first_answers(matches) -> dict | None"},
    {"line_entries", lexsub_line_entries, METH_VARARGS,
     "line_entries(firsts) -> dict | None"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_native", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
