/* Jabbari et al.'s per-instance values (jabbari_rows.py jabbari_values, jabbari.py
 * jabbari_row), the same floating-point operations in the same order. */

#include "native.h"

/* A count of Jabbari et al.'s gold as a double; 1 where it is not an int a double holds. */
static int count_value(PyObject *count, double *out) {
    long long value;
    int overflow;
    if (!PyLong_CheckExact(count)) return 1;
    value = PyLong_AsLongLongAndOverflow(count, &overflow);
    if (overflow || value > (1LL << 53) || value < -(1LL << 53)) return 1;
    *out = (double)value;
    return 0;
}

/* jabbari.py _f: coverage P, R and F from the gold counts found and the answers outside. */
static void coverage_prf(double found, double wrong, double total, double *p, double *r,
                         double *f) {
    *p = found + wrong != 0.0 ? found / (found + 1.0 * wrong) : 0.0;
    *r = found / total;
    *f = *p + *r != 0.0 ? 2 * *p * *r / (*p + *r) : 0.0;
}

#define JB_VALUES 15  /* jabbari.COLUMNS: jb_item, best1, P, R, F, F@1..10 */
#define JB_CUTS 10

/* counts.get(answer, 0) as a double in *h, and whether the answer is a key in *found: 0 done,
 * -1 on error, 1 where its count is not an int a double holds (Python must do it). */
static int count_of(PyObject *counts, const unsigned char *s, Py_ssize_t len, double *h,
                    int *found) {
    PyObject *value;
    int status = get_latin1(counts, s, len, &value);
    *h = 0.0;
    *found = status == 1;
    if (status < 0) return -1;
    return status == 1 && count_value(value, h) ? 1 : 0;
}

/* The ';' fields of text[0:n] trimmed of ASCII blanks, empty ones left out (jabbari_rows.py
 * answer_list), into *fields (grown as needed); their number, -1 on error. */
static Py_ssize_t answer_fields(const unsigned char *text, Py_ssize_t n, Span **fields,
                                Py_ssize_t *room) {
    Py_ssize_t count = 0, start = 0;
    while (start <= n) {
        const unsigned char *semi = memchr(text + start, ';', n - start);
        Py_ssize_t a = start, b = semi ? semi - text : n;
        start = b + 1;
        while (a < b && is_blank(text[a])) a++;
        while (b > a && is_blank(text[b - 1])) b--;
        if (a == b) continue;
        if (spans_room(fields, room, count) < 0) return -1;
        (*fields)[count].start = a;
        (*fields)[count++].len = b - a;
    }
    return count;
}

/* One instance's row (jabbari.py jabbari_row of the distinct trimmed answers, the same
 * floating-point operations in order; jabbari_rows.py's best1 of ``top``, the .best line's
 * first answer, where given), each answer's count (``h``, room for ``size``) looked up once:
 * 0 done, 1 where Python must do it, -1 on error. */
static int jabbari_one(PyObject *counts, double total, const unsigned char *text,
                       const Span *order, Py_ssize_t size, const unsigned char *top,
                       Py_ssize_t top_len, double *h, double *row) {
    Py_ssize_t j, pos = 0;
    double max_count = 0.0, found = 0.0, wrong = 0.0, value, p, r;
    PyObject *key, *count;
    int any_gold = 0, first = 1, status, present;
    memset(row, 0, JB_VALUES * sizeof(double));
    if (total <= 0) return 0;
    row[0] = 1.0;
    while (PyDict_Next(counts, &pos, &key, &count)) {  /* max(counts.values()) */
        if (count_value(count, &value)) return 1;
        if (first || value > max_count) max_count = value;
        first = 0;
    }
    for (j = 0; j < size; j++) {
        status = count_of(counts, text + order[j].start, order[j].len, &h[j], &present);
        if (status) return status;
        any_gold |= present;
    }
    if (any_gold) {
        double cut[JB_CUTS];
        row[1] = (h[0] > 0.0 ? h[0] : 0.0) / max_count;
        for (j = 0; j < size; j++) {
            found += h[j];
            wrong += h[j] <= 0.0;
            if (j >= JB_CUTS) continue;
            if (found > 0) {
                p = found / (found + 1.0 * wrong);
                r = found / total;
                cut[j] = 2 * p * r / (p + r);
            } else if (found == 0) {
                cut[j] = 0.0;
            } else {
                coverage_prf(found, wrong, total, &p, &r, &cut[j]);
            }
        }
        for (j = size; j < JB_CUTS; j++) cut[j] = cut[size - 1];  /* the last one, again */
        coverage_prf(found, wrong, total, &row[2], &row[3], &row[4]);
        memcpy(row + 5, cut, sizeof(cut));
    }
    if (top != NULL) {
        status = count_of(counts, top, top_len, &value, &present);
        if (status) return status;
        row[1] = (value > 0.0 ? value : 0.0) / max_count;
    }
    return 0;
}

/* The latin-1 text of dict[id] (a str), or NULL where absent; 1 where it is not latin-1 text
 * (Python must do it), -1 on error. */
static int text_of(PyObject *dict, PyObject *id, PyObject **text) {
    *text = PyDict_GetItemWithError(dict, id);
    if (*text == NULL) return PyErr_Occurred() ? -1 : 0;
    return PyUnicode_Check(*text) && PyUnicode_KIND(*text) == PyUnicode_1BYTE_KIND ? 0 : 1;
}

/* jabbari_rows(item_ids, counts, totals, coverage, first, out) -> bool: each instance's
 * Jabbari values (jabbari_rows.py jabbari_values) written to ``out``, a writable buffer of
 * len(item_ids) * 15 C doubles (an array('d')), row after row: ``coverage`` maps score.pl's
 * item id to the answer part of the line coverage reads, ``first`` (or None) to that of the
 * line best1 reads where that is another line. No str is made for an answer. False where
 * Python must do it (``out`` then holds nothing to read). */
PyObject *lexsub_jabbari_rows(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ids, *counts, *totals, *cover, *first, *target, *out = NULL;
    Py_buffer view;
    Span *fields = NULL;
    double *counted = NULL;  /* each distinct answer's count, room for ``room`` */
    int held = 0;
    Py_ssize_t n, i, room = 0, counted_room = 0;
    double *values;
    if (!PyArg_ParseTuple(args, "O!O!O!O!OO", &PyList_Type, &ids, &PyList_Type, &counts,
                          &PyList_Type, &totals, &PyDict_Type, &cover, &first, &target))
        return NULL;
    if (first != Py_None && !PyDict_Check(first)) {
        PyErr_SetString(PyExc_TypeError, "first must be a dict or None");
        return NULL;
    }
    n = PyList_GET_SIZE(ids);
    if (length_differs(counts, n, "item_ids and counts differ in length") ||
        length_differs(totals, n, "item_ids and totals differ in length"))
        return NULL;
    if (PyObject_GetBuffer(target, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) return NULL;
    held = 1;
    if (view.format == NULL || strcmp(view.format, "d") != 0 ||
        view.len != n * JB_VALUES * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "out is not an array of 15 doubles an item");
        goto done;
    }
    values = view.buf;
    for (i = 0; i < n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, i), *gold = PyList_GET_ITEM(counts, i);
        PyObject *answers, *best = NULL;
        const unsigned char *text = (const unsigned char *)"", *top = NULL;
        Py_ssize_t size = 0, top_len = 0;
        double total;
        int status;
        if (!PyDict_Check(gold) || count_value(PyList_GET_ITEM(totals, i), &total)) goto fallback;
        status = text_of(cover, id, &answers);
        if (status < 0) goto done;
        if (status > 0) goto fallback;
        if (first != Py_None) {
            status = text_of(first, id, &best);
            if (status < 0) goto done;
            if (status > 0) goto fallback;
        }
        if (best != NULL) {  /* its first answer, where it has one */
            Py_ssize_t count = answer_fields(PyUnicode_1BYTE_DATA(best),
                                             PyUnicode_GET_LENGTH(best), &fields, &room);
            if (count < 0) goto done;
            if (count) {
                top = PyUnicode_1BYTE_DATA(best) + fields[0].start;
                top_len = fields[0].len;
            }
        }
        if (answers != NULL) {
            text = PyUnicode_1BYTE_DATA(answers);
            size = answer_fields(text, PyUnicode_GET_LENGTH(answers), &fields, &room);
            if (size >= 0) size = distinct_spans(text, fields, size);
            if (size < 0) goto done;
        }
        if (size > counted_room) {
            PyMem_Free(counted);
            counted_room = room;
            counted = PyMem_Malloc(counted_room * sizeof(double));
            if (counted == NULL) { PyErr_NoMemory(); goto done; }
        }
        status = jabbari_one(gold, total, text, fields, size, top, top_len, counted,
                             values + i * JB_VALUES);
        if (status < 0) goto done;
        if (status > 0) goto fallback;
    }
    out = Py_NewRef(Py_True);
    goto done;
fallback:
    out = Py_NewRef(Py_False);
done:
    if (held) PyBuffer_Release(&view);
    PyMem_Free(fields);
    PyMem_Free(counted);
    return out;
}
