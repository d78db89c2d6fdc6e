/* score.pl's best/oot tallies (scorepl.py score_columns) and its count of .oot lines with
 * duplicates (repeats.py oot_repeats). */

#include "native.h"

/* norms.get(guess): 1 and *value where found, 0 where not, -1 on error, 2 where the value is
 * not a float (the caller hands the file to Python). */
static int norm_of(PyObject *norms, const unsigned char *s, Py_ssize_t len, double *value) {
    PyObject *found;
    int status = get_latin1(norms, s, len, &found);
    if (status != 1) return status;
    if (!PyFloat_Check(found)) return 2;
    *value = PyFloat_AS_DOUBLE(found);
    return 1;
}

/* scorepl_columns(matches, best, norms, modes, row_of, attempted, credits, mode_attempted,
 * mode_hit) -> bool: scorepl.py score_columns, each column a writable buffer of C doubles
 * (an array('d')) added to in place; False (nothing changed) where an answer part is not
 * latin-1 text, a norm is not a float or a mode not a str, the caller then runs the Python
 * definition. */
PyObject *lexsub_scorepl_columns(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *matches, *norms_of, *modes, *row_of, *objects[4], *done = NULL, *result = NULL;
    Span *spans = NULL;
    Py_buffer views[4];
    int best, held = 0;
    Py_ssize_t n, rows, i, count = 0, room = 0, buf_room = 0;
    double *cols = NULL;
    unsigned char *buf = NULL;
    if (!PyArg_ParseTuple(args, "O!pO!O!O!OOOO", &PyList_Type, &matches, &best,
                          &PyDict_Type, &norms_of, &PyDict_Type, &modes, &PyDict_Type, &row_of,
                          &objects[0], &objects[1], &objects[2], &objects[3]))
        return NULL;
    n = PyList_GET_SIZE(matches);
    if (!latin1_matches(matches)) Py_RETURN_FALSE;  /* nothing is done here */
    for (; held < 4; held++)
        if (PyObject_GetBuffer(objects[held], &views[held], PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
            goto error;
    rows = views[0].len / (Py_ssize_t)sizeof(double);
    for (int c = 0; c < 4; c++)
        if (views[c].itemsize != sizeof(double) || views[c].format == NULL ||
            strcmp(views[c].format, "d") != 0 || views[c].len != rows * (Py_ssize_t)sizeof(double)) {
            PyErr_SetString(PyExc_ValueError, "the columns are not equal arrays of doubles");
            goto error;
        }
    /* worked on in a copy: a norm that is not a float leaves the columns as they were */
    cols = PyMem_Malloc(4 * (rows ? rows : 1) * sizeof(double));
    done = PySet_New(NULL);
    if (cols == NULL || done == NULL) { PyErr_NoMemory(); goto error; }
    for (int c = 0; c < 4; c++) memcpy(cols + c * rows, views[c].buf, rows * sizeof(double));
    for (i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(matches, i), *item, *norms = NULL, *row, *mode;
        Py_ssize_t r, len, j, used;
        const unsigned char *text;
        int counts = counted_line(m, done, norms_of, &norms), blank = 1;
        if (counts < 0) goto error;
        if (!counts) continue;
        item = PyTuple_GET_ITEM(m, 1);
        row = PyDict_GetItemWithError(row_of, item);
        if (row == NULL) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, item);
            goto error;
        }
        r = PyLong_AsSsize_t(row);
        if (r == -1 && PyErr_Occurred()) goto error;
        if (r < 0 || r >= rows) { PyErr_SetString(PyExc_IndexError, "row"); goto error; }
        text = PyUnicode_1BYTE_DATA(PyTuple_GET_ITEM(m, 2));
        len = PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(m, 2));
        for (j = 0; j < len && blank; j++) blank = is_blank(text[j]);
        if (!blank) {  /* else the previous counted line's answers stay */
            Py_ssize_t end = len;
            while (end > 0 && text[end - 1] == ';') end--;  /* perl's split: no trailing empties */
            if (buf_room < len + 1) {
                PyMem_Free(buf);
                buf_room = len + 1;
                buf = PyMem_Malloc(buf_room);
                if (buf == NULL) { PyErr_NoMemory(); goto error; }
            }
            count = fixed_guesses(text, end, buf, &spans, &room);
            if (count < 0) goto error;
            if (count) cols[0 * rows + r] += 1.0;
        }
        used = best ? count : (count < 10 ? count : 10);
        if (!best) count = used;  /* the cut to 10 stays with these answers */
        if (used) {
            double credit = 0.0, value;
            mode = PyDict_GetItemWithError(modes, item);
            if (mode == NULL && PyErr_Occurred()) goto error;
            if (mode != NULL && !PyUnicode_Check(mode)) { result = Py_NewRef(Py_False); goto error; }
            if (mode != NULL && PyUnicode_GET_LENGTH(mode) > 0) {
                int hit = 0;
                cols[2 * rows + r] += 1.0;
                for (j = 0; j < (best ? 1 : used) && !hit; j++)
                    hit = key_is(mode, buf + spans[j].start, spans[j].len);
                if (hit) cols[3 * rows + r] += 1.0;
            }
            for (j = 0; j < used; j++) {  /* added one at a time, in order */
                int found = norm_of(norms, buf + spans[j].start, spans[j].len, &value);
                if (found < 0) goto error;
                if (found == 2) { result = Py_NewRef(Py_False); goto error; }
                credit += found ? value : 0.0;
            }
            if (credit != 0.0) cols[1 * rows + r] += best ? credit / (double)used : credit;
        }
    }
    for (int c = 0; c < 4; c++) memcpy(views[c].buf, cols + c * rows, rows * sizeof(double));
    result = Py_NewRef(Py_True);
error:
    for (int c = 0; c < held; c++) PyBuffer_Release(&views[c]);
    PyMem_Free(spans);
    PyMem_Free(buf);
    PyMem_Free(cols);
    Py_XDECREF(done);
    return result;
}

/* oot_repeats(lines, matches, norms) -> list[(number, item)] | None: repeats.py oot_repeats,
 * the .oot lines score.pl counts in "OOT file contains duplicates on N lines". */
PyObject *lexsub_oot_repeats(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *lines, *matches, *norms_of, *done = NULL, *out = NULL;
    Py_ssize_t n, i, buf_room = 0, room = 0;
    unsigned char *buf = NULL;
    Span *spans = NULL;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyList_Type, &lines, &PyList_Type, &matches,
                          &PyDict_Type, &norms_of))
        return NULL;
    n = PyList_GET_SIZE(matches);
    if (length_differs(lines, n, "lines and matches differ in length")) return NULL;
    if (!latin1_matches(matches)) Py_RETURN_NONE;  /* the Python definition */
    done = PySet_New(NULL);
    out = PyList_New(0);
    if (done == NULL || out == NULL) goto error;
    for (i = 0; i < n; i++) {
        PyObject *m = PyList_GET_ITEM(matches, i), *item, *norms = NULL, *number, *pair;
        const unsigned char *text;
        Py_ssize_t len, end, count, j;
        int counts = counted_line(m, done, norms_of, &norms), blank = 1;
        if (counts < 0) goto error;
        if (!counts) continue;
        item = PyTuple_GET_ITEM(m, 1);
        text = PyUnicode_1BYTE_DATA(PyTuple_GET_ITEM(m, 2));
        len = PyUnicode_GET_LENGTH(PyTuple_GET_ITEM(m, 2));
        for (j = 0; j < len && blank; j++) blank = is_blank(text[j]);
        if (blank) continue;
        end = len;
        while (end > 0 && text[end - 1] == ';') end--;  /* perl's split */
        if (buf_room < end + 1) {
            PyMem_Free(buf);
            buf_room = end + 1;
            buf = PyMem_Malloc(buf_room);
            if (buf == NULL) { PyErr_NoMemory(); goto error; }
        }
        /* every answer fixmisc'd (all of them, before the cut to 10): one twice? */
        count = fixed_guesses(text, end, buf, &spans, &room);
        if (count < 0) goto error;
        j = distinct_spans(buf, spans, count);
        if (j < 0) goto error;
        if (j == count) continue;
        number = PyTuple_Check(PyList_GET_ITEM(lines, i)) &&
            PyTuple_GET_SIZE(PyList_GET_ITEM(lines, i)) >= 1 ?
            PyTuple_GET_ITEM(PyList_GET_ITEM(lines, i), 0) : NULL;
        if (number == NULL) {
            PyErr_SetString(PyExc_TypeError, "lines are (number, text) pairs");
            goto error;
        }
        pair = PyTuple_Pack(2, number, item);
        if (pair == NULL || PyList_Append(out, pair) < 0) { Py_XDECREF(pair); goto error; }
        Py_DECREF(pair);
    }
    goto finish;
error:
    Py_CLEAR(out);
finish:
    Py_XDECREF(done);
    PyMem_Free(buf);
    PyMem_Free(spans);
    return out;
}
