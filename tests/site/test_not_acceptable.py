"""The 4xx an operation without input documents (406, maumau.schema.ERRORS) is one it really gives:
an Accept header that allows no JSON is refused in the error shape."""

import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_the_vapid_key_refuses_an_accept_header_without_json_in_the_error_shape() -> None:
    answer = APIClient().get("/api/v1/push/vapid-public-key", HTTP_ACCEPT="text/html")
    assert answer.status_code == 406
    assert answer.json()["error"]["code"] == "not_acceptable"


@pytest.mark.django_db
def test_the_schema_documents_that_406() -> None:
    schema = APIClient().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    answer = schema["paths"]["/api/v1/push/vapid-public-key"]["get"]["responses"]["406"]
    assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/ApiError"}
