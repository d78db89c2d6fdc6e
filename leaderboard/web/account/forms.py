"""Account forms (Flask-WTF, so every one carries and checks a CSRF token)."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, EmailField, PasswordField, StringField
from wtforms.validators import DataRequired, EqualTo, Length, Regexp

MIN_PASSWORD = 8
# A light check; whether the address works is the team's concern.
EMAIL = Regexp(r"^[^@\s]+@[^@\s]+\.[^@\s]+$", message="Enter a valid e-mail address.")


def _new_password(label: str = "Password") -> PasswordField:
    return PasswordField(label, validators=[
        DataRequired(message="Choose a password."),
        Length(min=MIN_PASSWORD, max=200,
               message=f"Password must be at least {MIN_PASSWORD} characters."),
    ])


def _confirm(field: str) -> PasswordField:
    return PasswordField("Repeat the password", validators=[
        DataRequired(message="Repeat the password."),
        EqualTo(field, message="The two passwords differ."),
    ])


class SignupForm(FlaskForm):
    """A new team with its first member."""

    team_name = StringField("Team name", validators=[
        DataRequired(message="Enter a team name."),
        Length(max=80, message="Team name must be at most 80 characters."),
    ])
    email = EmailField("E-mail", validators=[DataRequired(message="Enter your e-mail."), EMAIL,
                                             Length(max=254)])
    password = _new_password()
    confirm = _confirm("password")


class JoinForm(FlaskForm):
    """A new member of an existing team, from an invitation link."""

    email = EmailField("E-mail", validators=[DataRequired(message="Enter your e-mail."), EMAIL,
                                             Length(max=254)])
    password = _new_password()
    confirm = _confirm("password")


class LoginForm(FlaskForm):
    """E-mail and password."""

    email = EmailField("E-mail", validators=[DataRequired(message="Enter your e-mail.")])
    password = PasswordField("Password", validators=[DataRequired(message="Enter your password.")])


class ChangePasswordForm(FlaskForm):
    """Current password, then the new one twice."""

    current_password = PasswordField("Current password", validators=[
        DataRequired(message="Enter your current password.")])
    password = _new_password("New password")
    confirm = _confirm("password")


class ResetRequestForm(FlaskForm):
    """Ask for a password reset link."""

    email = EmailField("E-mail", validators=[DataRequired(message="Enter your e-mail."), EMAIL])


class ResetPasswordForm(FlaskForm):
    """Choose a password from a reset or set-password link."""

    password = _new_password("New password")
    confirm = _confirm("password")


class TokenCreateForm(FlaskForm):
    """Name a new API token."""

    name = StringField("Token name", validators=[
        DataRequired(message="Give the token a name, e.g. ci or laptop."),
        Length(max=80, message="Token name must be at most 80 characters."),
    ])
    read_only = BooleanField("Read only: status and lists of your submissions, no uploads")


class ActionForm(FlaskForm):
    """A button-only form (log out, revoke): just the CSRF token."""
