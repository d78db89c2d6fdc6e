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

/* One instance's row (jabbari.py jabbari_row with trimmed answers, and jabbari_rows.py's
 * best1 of the .best line's first answer where ``top`` is given); 1 where Python must do it,
 * -1 on error. */
static int jabbari_one(PyObject *counts, double total, PyObject *answers, PyObject *top,
                       Entry *table, size_t capacity, PyObject **order, double *row) {
    Py_ssize_t n = answers ? PySequence_Fast_GET_SIZE(answers) : 0, size = 0, j, pos = 0;
    size_t slots;
    double max_count = 0.0, found = 0.0, wrong = 0.0, h, p, r;
    PyObject *key, *value;
    int any_gold = 0, first = 1, status;
    memset(row, 0, JB_VALUES * sizeof(double));
    if (total <= 0) return 0;
    row[0] = 1.0;
    while (PyDict_Next(counts, &pos, &key, &value)) {  /* max(counts.values()) */
        if (count_value(value, &h)) return 1;
        if (first || h > max_count) max_count = h;
        first = 0;
    }
    for (slots = 64; slots < (size_t)n * 2; slots *= 2) {}
    if (slots > capacity) return 2;  /* the caller grows the table */
    memset(table, 0, slots * sizeof(Entry));
    for (j = 0; j < n; j++) {  /* dict.fromkeys(answers): first of each, in order */
        PyObject *answer = PySequence_Fast_GET_ITEM(answers, j);
        status = distinct_add(table, slots - 1, answer);
        if (status < 0) return -1;
        if (status) order[size++] = answer;
    }
    for (j = 0; j < size && !any_gold; j++) {
        status = PyDict_Contains(counts, order[j]);
        if (status < 0) return -1;
        any_gold = status;
    }
    if (any_gold) {
        double cut[JB_CUTS];
        value = PyDict_GetItemWithError(counts, order[0]);
        if (value == NULL && PyErr_Occurred()) return -1;
        h = 0.0;
        if (value != NULL && count_value(value, &h)) return 1;
        row[1] = (h > 0.0 ? h : 0.0) / max_count;
        for (j = 0; j < size; j++) {
            value = PyDict_GetItemWithError(counts, order[j]);
            if (value == NULL && PyErr_Occurred()) return -1;
            h = 0.0;
            if (value != NULL && count_value(value, &h)) return 1;
            found += h;
            wrong += h <= 0.0;
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
    if (top != NULL && PyList_Check(top) && PyList_GET_SIZE(top) > 0) {
        value = PyDict_GetItemWithError(counts, PyList_GET_ITEM(top, 0));
        if (value == NULL && PyErr_Occurred()) return -1;
        h = 0.0;
        if (value != NULL && count_value(value, &h)) return 1;
        row[1] = (h > 0.0 ? h : 0.0) / max_count;
    } else if (top != NULL && top != Py_None && !PyList_Check(top)) {
        return 1;
    }
    return 0;
}

/* jabbari_rows(item_ids, counts, totals, coverage, first, out) -> bool: each instance's
 * Jabbari values (jabbari_rows.py jabbari_values) written to ``out``, a writable buffer of
 * len(item_ids) * 15 C doubles (an array('d')), row after row: ``coverage`` maps score.pl's
 * item id to the answers of the line coverage reads, ``first`` (or None) to those of the
 * line best1 reads where that is another line. False where Python must do it (``out`` then
 * holds nothing to read). */
PyObject *lexsub_jabbari_rows(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *ids, *counts, *totals, *cover, *first, *target, *out = NULL;
    Py_buffer view;
    int held = 0;
    Py_ssize_t n, i;
    size_t capacity = 64;
    double *values;
    Entry *table = PyMem_Malloc(capacity * sizeof(Entry));
    PyObject **order = PyMem_Malloc(capacity * sizeof(PyObject *));
    if (table == NULL || order == NULL) { PyErr_NoMemory(); goto done; }
    if (!PyArg_ParseTuple(args, "O!O!O!O!OO", &PyList_Type, &ids, &PyList_Type, &counts,
                          &PyList_Type, &totals, &PyDict_Type, &cover, &first, &target))
        goto done;
    if (first != Py_None && !PyDict_Check(first)) {
        PyErr_SetString(PyExc_TypeError, "first must be a dict or None");
        goto done;
    }
    n = PyList_GET_SIZE(ids);
    if (length_differs(counts, n, "item_ids and counts differ in length") ||
        length_differs(totals, n, "item_ids and totals differ in length"))
        goto done;
    if (PyObject_GetBuffer(target, &view, PyBUF_WRITABLE | PyBUF_FORMAT) < 0) goto done;
    held = 1;
    if (view.format == NULL || strcmp(view.format, "d") != 0 ||
        view.len != n * JB_VALUES * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError, "out is not an array of 15 doubles an item");
        goto done;
    }
    values = view.buf;
    for (i = 0; i < n; i++) {
        PyObject *id = PyList_GET_ITEM(ids, i), *gold = PyList_GET_ITEM(counts, i);
        PyObject *answers, *fast = NULL, *top = NULL;
        double total;
        int status;
        if (!PyDict_Check(gold) || count_value(PyList_GET_ITEM(totals, i), &total)) goto fallback;
        answers = PyDict_GetItemWithError(cover, id);
        if (answers == NULL && PyErr_Occurred()) goto done;
        if (answers != NULL) {
            fast = PySequence_Fast(answers, "answers must be a sequence");
            if (fast == NULL) goto done;
            for (Py_ssize_t j = 0; j < PySequence_Fast_GET_SIZE(fast); j++)
                if (!PyUnicode_CheckExact(PySequence_Fast_GET_ITEM(fast, j))) {
                    Py_DECREF(fast);
                    goto fallback;
                }
        }
        if (first != Py_None) {
            top = PyDict_GetItemWithError(first, id);
            if (top == NULL && PyErr_Occurred()) { Py_XDECREF(fast); goto done; }
        }
        while ((status = jabbari_one(gold, total, fast, top, table, capacity, order,
                                     values + i * JB_VALUES)) == 2) {
            PyMem_Free(table);
            PyMem_Free(order);
            capacity *= 2;
            table = PyMem_Malloc(capacity * sizeof(Entry));
            order = PyMem_Malloc(capacity * sizeof(PyObject *));
            if (table == NULL || order == NULL) {
                PyErr_NoMemory();
                Py_XDECREF(fast);
                goto done;
            }
        }
        Py_XDECREF(fast);
        if (status < 0) goto done;
        if (status > 0) goto fallback;
    }
    out = Py_NewRef(Py_True);
    goto done;
fallback:
    out = Py_NewRef(Py_False);
done:
    if (held) PyBuffer_Release(&view);
    PyMem_Free(table);
    PyMem_Free(order);
    return out;
}
