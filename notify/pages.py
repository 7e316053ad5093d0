"""Routes of the pages mails link to (outside the API: they answer HTML)."""

from django.urls import path

from notify import views

urlpatterns = [
    path("email/verify/<str:signed>", views.email_verify, name="email-verify"),
    path("email/unsubscribe/<str:signed>", views.email_unsubscribe, name="email-unsubscribe"),
]
