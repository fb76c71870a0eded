"""Smoke test of the generated Python SDK (gantry_sdk) against a running controller.

Usage: python3 smoke.py URL ADMIN_PASSWORD
Does what a script built on the SDK does: signs in, submits a job that runs and one that waits held,
waits for the first to complete, reads it, cancels the second, pages through the jobs, and reads a
problem answer as an ApiException. Prints one line per step; exits non-zero on the first failure.
"""
import sys
import time
import uuid

import gantry_sdk
from gantry_sdk.rest import ApiException


def main(url, password):
    anonymous = gantry_sdk.ApiClient(gantry_sdk.Configuration(host=url))
    token = gantry_sdk.AuthApi(anonymous).create_token(
        gantry_sdk.TokenRequest(username="admin", password=password))
    assert token.token_type == "Bearer", token.token_type
    config = gantry_sdk.Configuration(host=url, access_token=token.token)
    client = gantry_sdk.ApiClient(config)
    assert gantry_sdk.AuthApi(client).get_whoami().username == "admin"
    print("signed in")

    jobs = gantry_sdk.JobsApi(client)
    name = "py-sdk-" + uuid.uuid4().hex[:8]
    ran = jobs.submit_job(gantry_sdk.JobSubmission(
        name=name, script="#!/bin/bash\necho hi\n", partition="cpu", time_limit_seconds=600,
        simulated_run_seconds=1)).job_id
    held = jobs.submit_job(gantry_sdk.JobSubmission(
        name=name, script="#!/bin/bash\nsleep 600\n", partition="cpu", hold=True, tasks=2)).job_id
    print("submitted", ran, held)

    deadline = time.time() + 60
    job = jobs.get_job(str(ran))
    while job.state != "COMPLETED":
        assert job.state in ("PENDING", "RUNNING", "COMPLETING"), job.state
        assert time.time() < deadline, "job %s still %s after 60 s" % (ran, job.state)
        time.sleep(0.2)
        job = jobs.get_job(str(ran))
    assert job.exit_code == 0, job.exit_code
    assert job.name == name and job.user == "admin" and job.partition == "cpu"
    assert job.start_time is not None and job.end_time is not None
    print("completed", ran, job.state, job.exit_code)

    waiting = jobs.get_job(str(held))
    assert waiting.state == "PENDING" and waiting.reason == "JobHeldUser", (waiting.state, waiting.reason)
    assert waiting.tasks == 2
    cancelled = jobs.cancel_job(str(held))
    assert cancelled.jobs == [str(held)], cancelled.jobs
    assert jobs.get_job(str(held)).state == "CANCELLED"
    print("cancelled", held)

    seen = []
    page = 0
    while True:
        listed = jobs.list_jobs(name=name, sort="id", page=page, size=1)
        seen.extend(j.job_id for j in listed.items)
        if (page + 1) * 1 >= listed.total:
            break
        page += 1
    assert seen == sorted([ran, held]), seen
    print("paged", seen)

    try:
        gantry_sdk.NodesApi(client).get_node("no-such-node")
        raise AssertionError("no ApiException for an unknown node")
    except ApiException as e:
        assert e.status == 404, e.status
        assert '"status":404' in e.body.replace(" ", ""), e.body
    print("problem", 404)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    print("ok")
