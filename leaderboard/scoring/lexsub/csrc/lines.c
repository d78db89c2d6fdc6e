/* A usual .best/.oot file matched as score.pl matches it (formats.py parse_lines), and what
 * Answers and first_lines make of each key's first answer part. */

#include "native.h"

/* score.pl's match of ``([\w.]+) (\S+) <sep>`` on s[0:n] (lines.py match_kind): the leftmost
 * space after a [\w.] character followed by a run of non-blanks and the separator. Sets the
 * space's index and the run's end; 0 where there is none. */
static int match_sep(const unsigned char *s, Py_ssize_t n, const char *sep, Py_ssize_t seplen,
                     Py_ssize_t *space, Py_ssize_t *run_end) {
    Py_ssize_t p = 1;
    while (p < n) {
        const unsigned char *found = memchr(s + p, ' ', n - p);
        Py_ssize_t q;
        if (found == NULL) return 0;
        p = found - s;
        if (!is_word(s[p - 1])) { p++; continue; }
        for (q = p + 1; q < n && !is_blank(s[q]); q++) {}
        if (q > p + 1 && n - q >= seplen && memcmp(s + q, sep, seplen) == 0) {
            *space = p;
            *run_end = q;
            return 1;
        }
        p = q > p + 1 ? q : p + 1;  /* runs after different spaces do not overlap */
    }
    return 0;
}

/* parse_lines(data, max_entries, max_lines, max_chars, line_match) -> (best_lines, oot_lines,
 * best_matches, oot_matches, keys, best_firsts, oot_firsts) | None: formats.py parse_lines on
 * a usual file (every non-blank line a .best or .oot line, no id twice in a kind, no CR at a
 * line's end, within the limits, at least one answer line); None for any other, which the
 * Python reader reads with its warnings. */
PyObject *lexsub_parse_lines(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer view;
    Py_ssize_t max_entries, max_lines, max_chars, pos = 0, number = 0;
    PyObject *line_match, *result = NULL, *lists[4] = {NULL, NULL, NULL, NULL};
    PyObject *keys = NULL, *firsts[2] = {NULL, NULL}, *seen[2] = {NULL, NULL};
    if (!PyArg_ParseTuple(args, "y*nnnO", &view, &max_entries, &max_lines, &max_chars,
                          &line_match))
        return NULL;
    if (!PyType_Check(line_match) ||
        !PyType_IsSubtype((PyTypeObject *)line_match, &PyTuple_Type)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_TypeError, "line_match must be a named tuple class");
        return NULL;
    }
    const unsigned char *data = view.buf;
    Py_ssize_t size = view.len;
    for (int k = 0; k < 4; k++) if ((lists[k] = PyList_New(0)) == NULL) goto done;
    for (int k = 0; k < 2; k++) {
        if ((firsts[k] = PyDict_New()) == NULL || (seen[k] = PySet_New(NULL)) == NULL) goto done;
    }
    if ((keys = PySet_New(NULL)) == NULL) goto done;
    while (pos < size) {
        const unsigned char *nl = memchr(data + pos, '\n', size - pos), *s = data + pos;
        Py_ssize_t end = nl ? (Py_ssize_t)(nl - data) : size, n = end - pos, space, run_end;
        Py_ssize_t j, semis = 0, lemma_start, key_start, key_end;
        int kind = -1, blank = 1, status;  /* 0: best, 1: oot */
        PyObject *text = NULL, *lemma = NULL, *item = NULL, *answers = NULL, *num = NULL;
        PyObject *match = NULL, *pair = NULL, *key = NULL;
        pos = end + 1;
        if (++number >= max_lines || n >= max_chars) goto fallback;
        if (memmem(s, n, " ::: ", 5) && match_sep(s, n, " ::: ", 5, &space, &run_end))
            kind = 1;
        else if (memmem(s, n, " :: ", 4) && match_sep(s, n, " :: ", 4, &space, &run_end))
            kind = 0;
        if (kind < 0) {
            for (j = 0; j < n && blank; j++) blank = is_blank(s[j]);
            if (blank) continue;  /* skipped without a word, as score.pl does */
            goto fallback;        /* "Error in file on line N": the Python reader says so */
        }
        if (n > 0 && s[n - 1] == '\r') goto fallback;  /* the carriage-return warning */
        for (j = run_end + (kind ? 5 : 4); j < n; j++) semis += s[j] == ';';
        if (semis > max_entries) goto fallback;
        for (lemma_start = space; lemma_start > 0 && is_word(s[lemma_start - 1]); lemma_start--) {}
        for (key_start = 0; key_start < space && is_py_space(s[key_start]); key_start++) {}
        for (key_end = space; key_end > key_start && is_py_space(s[key_end - 1]); key_end--) {}
        text = PyUnicode_DecodeLatin1((const char *)s, n, NULL);
        lemma = PyUnicode_DecodeLatin1((const char *)s + lemma_start, space - lemma_start, NULL);
        item = PyUnicode_DecodeLatin1((const char *)s + space + 1, run_end - space - 1, NULL);
        answers = PyUnicode_DecodeLatin1((const char *)s + run_end + (kind ? 5 : 4),
                                         n - run_end - (kind ? 5 : 4), NULL);
        num = PyLong_FromSsize_t(number);
        if (text == NULL || lemma == NULL || item == NULL || answers == NULL || num == NULL)
            goto line_error;
        status = PySet_Contains(seen[kind], item);
        if (status != 0) goto line_decline;  /* an id twice: the duplicate warning */
        if (PySet_Add(seen[kind], item) < 0) goto line_error;
        {  /* LineMatch(lemma, item, answers, space), made as tuple.__new__ makes a tuple
            * subclass's instance (allocated, then filled; the named tuple's own __new__ is
            * Python code) */
            PyObject *end_at = PyLong_FromSsize_t(space);
            match = end_at == NULL ? NULL
                : ((PyTypeObject *)line_match)->tp_alloc((PyTypeObject *)line_match, 4);
            if (match == NULL) {
                Py_XDECREF(end_at);
            } else {
                PyTuple_SET_ITEM(match, 0, Py_NewRef(lemma));
                PyTuple_SET_ITEM(match, 1, Py_NewRef(item));
                PyTuple_SET_ITEM(match, 2, Py_NewRef(answers));
                PyTuple_SET_ITEM(match, 3, end_at);
            }
        }
        {  /* the key: "lemma.pos ID", the lemma with whatever precedes the match, trimmed,
            * written as bytes and decoded once */
            Py_ssize_t head = key_end - key_start, tail = run_end - space - 1;
            char small[256], *buf = head + 1 + tail <= (Py_ssize_t)sizeof small
                ? small : PyMem_Malloc(head + 1 + tail);
            if (buf != NULL) {
                memcpy(buf, s + key_start, head);
                buf[head] = ' ';
                memcpy(buf + head + 1, s + space + 1, tail);
                key = PyUnicode_DecodeLatin1(buf, head + 1 + tail, NULL);
                if (buf != small) PyMem_Free(buf);
            } else {
                PyErr_NoMemory();
            }
        }
        pair = PyTuple_Pack(2, num, text);
        if (match == NULL || key == NULL || pair == NULL) goto line_error;
        if (PyList_Append(lists[kind], pair) < 0 || PyList_Append(lists[2 + kind], match) < 0 ||
            PySet_Add(keys, key) < 0 || PyDict_SetDefault(firsts[kind], key, answers) == NULL)
            goto line_error;
        Py_DECREF(text); Py_DECREF(lemma); Py_DECREF(item); Py_DECREF(answers); Py_DECREF(num);
        Py_DECREF(match); Py_DECREF(key); Py_DECREF(pair);
        continue;
line_decline:
        if (status < 0) goto line_error;
        Py_XDECREF(text); Py_XDECREF(lemma); Py_XDECREF(item); Py_XDECREF(answers);
        Py_XDECREF(num);
        goto fallback;
line_error:
        Py_XDECREF(text); Py_XDECREF(lemma); Py_XDECREF(item); Py_XDECREF(answers);
        Py_XDECREF(num); Py_XDECREF(match); Py_XDECREF(key); Py_XDECREF(pair);
        goto done;
    }
    if (PyList_GET_SIZE(lists[0]) == 0 && PyList_GET_SIZE(lists[1]) == 0) goto fallback;
    result = Py_BuildValue("(OOOOOOO)", lists[0], lists[1], lists[2], lists[3], keys,
                           firsts[0], firsts[1]);
    goto done;
fallback:
    result = Py_NewRef(Py_None);
done:
    for (int k = 0; k < 4; k++) Py_XDECREF(lists[k]);
    for (int k = 0; k < 2; k++) { Py_XDECREF(firsts[k]); Py_XDECREF(seen[k]); }
    Py_XDECREF(keys);
    PyBuffer_Release(&view);
    return result;
}

/* The ';' fields of s[0:n] kept by ``keep`` (the field and its length) as a new list of str,
 * each field trimmed of ASCII blanks first where ``trim``. */
static PyObject *split_fields(const unsigned char *s, Py_ssize_t n, int trim,
                              int (*keep)(const unsigned char *, Py_ssize_t)) {
    PyObject *out = PyList_New(0);
    Py_ssize_t start = 0;
    if (out == NULL) return NULL;
    while (start <= n) {
        const unsigned char *semi = memchr(s + start, ';', n - start);
        Py_ssize_t a = start, b = semi ? semi - s : n;
        start = b + 1;
        if (trim) {
            while (a < b && is_blank(s[a])) a++;
            while (b > a && is_blank(s[b - 1])) b--;
        }
        if (keep(s + a, b - a)) {
            PyObject *field = PyUnicode_DecodeLatin1((const char *)s + a, b - a, NULL);
            if (field == NULL || PyList_Append(out, field) < 0) {
                Py_XDECREF(field);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(field);
        }
    }
    return out;
}

static int not_empty(const unsigned char *Py_UNUSED(s), Py_ssize_t n) { return n > 0; }

static int not_py_blank(const unsigned char *s, Py_ssize_t n) {  /* a.strip() is not "" */
    for (Py_ssize_t i = 0; i < n; i++) if (!is_py_space(s[i])) return 1;
    return 0;
}

/* first_answers(matches) -> dict | None: jabbari_rows.py first_lines, score.pl's item id ->
 * the answers of its first line (fields trimmed of ASCII blanks, empty ones left out). */
PyObject *lexsub_first_answers(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *matches, *out;
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "O!", &PyList_Type, &matches)) return NULL;
    if (!latin1_matches(matches)) Py_RETURN_NONE;
    out = PyDict_New();
    if (out == NULL) return NULL;
    for (i = 0; i < PyList_GET_SIZE(matches); i++) {
        PyObject *m = PyList_GET_ITEM(matches, i), *item, *fields, *text;
        int status;
        if (m == Py_None) continue;
        item = PyTuple_GET_ITEM(m, 1);
        status = PyDict_Contains(out, item);
        if (status < 0) { Py_DECREF(out); return NULL; }
        if (status) continue;
        text = PyTuple_GET_ITEM(m, 2);
        fields = split_fields(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text), 1,
                              not_empty);
        if (fields == NULL || PyDict_SetItem(out, item, fields) < 0) {
            Py_XDECREF(fields);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(fields);
    }
    return out;
}

/* line_entries(firsts) -> dict | None: formats.py Answers._set_entries, key -> [(answer,
 * -i)] of its answer part's fields that are not blank (str.strip()), as written. */
PyObject *lexsub_line_entries(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *firsts, *out, *key, *text;
    Py_ssize_t pos = 0;
    if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &firsts)) return NULL;
    while (PyDict_Next(firsts, &pos, &key, &text))
        if (!PyUnicode_Check(text) || PyUnicode_KIND(text) != PyUnicode_1BYTE_KIND)
            Py_RETURN_NONE;
    out = PyDict_New();
    if (out == NULL) return NULL;
    pos = 0;
    while (PyDict_Next(firsts, &pos, &key, &text)) {
        PyObject *fields = split_fields(PyUnicode_1BYTE_DATA(text), PyUnicode_GET_LENGTH(text),
                                        0, not_py_blank);
        Py_ssize_t j;
        if (fields == NULL) { Py_DECREF(out); return NULL; }
        for (j = 0; j < PyList_GET_SIZE(fields); j++) {
            PyObject *rank = PyFloat_FromDouble(j ? -(double)j : 0.0), *pair;
            pair = rank == NULL ? NULL : PyTuple_Pack(2, PyList_GET_ITEM(fields, j), rank);
            Py_XDECREF(rank);
            if (pair == NULL) { Py_DECREF(fields); Py_DECREF(out); return NULL; }
            PyList_SetItem(fields, j, pair);  /* steals pair, drops the str */
        }
        if (PyDict_SetItem(out, key, fields) < 0) {
            Py_DECREF(fields);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(fields);
    }
    return out;
}
