"""HTML error pages per status code; the API blueprint answers JSON instead."""

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

HTML_PAGES = (400, 403, 404, 405, 413, 429, 500)


def register(app: Flask) -> None:
    """Install the error handlers."""

    @app.errorhandler(HTTPException)
    def handle_http_error(error: HTTPException):
        if request.path.startswith("/api/"):
            body = {"error": {"status": error.code, "code": error.name.lower().replace(" ", "_"),
                              "message": error.description}}
            return jsonify(body), error.code
        page = f"errors/{error.code}.html" if error.code in HTML_PAGES else "errors/generic.html"
        return render_template(page, error=error), error.code
