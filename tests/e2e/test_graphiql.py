"""GraphiQL at /graphql in a browser with no internet: every request it makes stays on
this host, the editor renders, and a subscription runs through its fetcher."""

import json

import pytest
from playwright.async_api import Browser, expect

from tests.e2e.web.support import record_outside
from tests.support.client import Client, gid
from tests.support.shop import Shop
from tests.support.subscriptions import QUEUE, START, print_tasks

pytestmark = pytest.mark.e2e

RESPONSE = "() => document.querySelector('.graphiql-response .CodeMirror').CodeMirror.getValue()"


async def test_graphiql_works_offline_with_subscriptions(
    api: Client,
    server: str,
    shop: Shop,
    browser: Browser,
) -> None:
    page = await browser.new_page()
    outside: list[str] = []
    page.on("requestfailed", lambda request: record_outside(outside, request))
    errors: list[object] = []
    page.on("pageerror", lambda error: errors.append(error))
    response = await page.goto(server)
    assert response is not None
    assert response.headers["content-type"].startswith("text/html")
    await expect(page.locator(".graphiql-container")).to_be_visible()
    await expect(page.locator(".graphiql-editor").first).to_be_visible()

    [task] = await print_tasks(shop, 1)
    token = shop.tokens["pat"]
    cursor = (await api.as_(token)(QUEUE))["queue"]["eventCursor"]
    query = (
        f'subscription {{ queueEvents(department: "print", after: "{cursor}") '
        "{ kind task { id status } } }"
    )
    # Typed in as a person would: the query, then the Authorization header, then run.
    await page.locator(".graphiql-query-editor .CodeMirror").click()
    await page.keyboard.press("Control+A")
    await page.keyboard.insert_text(query)
    await page.get_by_role("button", name="Headers").click()
    await page.locator(".graphiql-editor-tool .CodeMirror").last.click()
    await page.keyboard.insert_text(json.dumps({"Authorization": f"Bearer {token}"}))
    await page.locator(".graphiql-execute-button").click()
    # The subscription is live once its websocket is acknowledged; the cursor makes
    # the start below arrive whether it commits before or after that.
    await api.as_(token)(START, {"i": {"taskId": gid("DepartmentTask", task)}})
    response = page.locator(".graphiql-response")
    await expect(response).to_contain_text("TASK_CHANGED")
    shown = json.loads(await page.evaluate(RESPONSE))
    assert shown["data"]["queueEvents"] == {
        "kind": "TASK_CHANGED",
        "task": {"id": gid("DepartmentTask", task), "status": "STARTED"},
    }
    assert outside == []
    assert errors == []
    await page.close()


async def test_api_clients_still_get_graphql_at_the_same_url(api: Client, shop: Shop) -> None:
    response = await api.http.get(api.url, params={"query": "{ __typename }"})
    assert response.json() == {"data": {"__typename": "Query"}}
