"""Routes of /api/v1/ for the lobby: seeks, challenges, table chat."""

from django.urls import path

from lobby import apis

urlpatterns = [
    path("seeks", apis.SeekListCreateApi.as_view(), name="seeks"),
    path("seeks/<id:seek_id>", apis.SeekDetailApi.as_view(), name="seek-detail"),
    path("challenges", apis.ChallengeListCreateApi.as_view(), name="challenges"),
    path("challenges/<id:challenge_id>", apis.ChallengeDetailApi.as_view(), name="challenge-detail"),
    path("challenges/<id:challenge_id>/accept", apis.ChallengeAcceptApi.as_view(), name="challenge-accept"),
    path("challenges/<id:challenge_id>/decline", apis.ChallengeDeclineApi.as_view(), name="challenge-decline"),
    path("tables/<id:table_id>/messages", apis.TableMessagesApi.as_view(), name="table-messages"),
    path("tables/<id:table_id>/mute", apis.TableMuteApi.as_view(), name="table-mute"),
]
