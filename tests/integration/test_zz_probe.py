import base64, json
from sqlalchemy import text
from tests.integration.conftest import Client, Shop, gid

def b64(s): return base64.b64encode(s.encode()).decode()

import pytest
@pytest.mark.parametrize('DEPTH',[1])
async def test_probe(DEPTH, api: Client, shop: Shop, http) -> None:
    sam = api.as_(shop.tokens["sam"])
    ada = api.as_(shop.tokens["ada"])
    pat = api.as_(shop.tokens["pat"])
    print("wo bad", await sam.raw("query($id: ID!) { workOrder(id: $id) { id } }", {"id": "!!"}))
    print("wos cust bad", await sam.raw("query($id: ID!) { workOrders(customerId: $id) { edges { cursor } } }", {"id": "!!"}))
    print("wos cust user", await sam.raw("query($id: ID!) { workOrders(customerId: $id) { edges { cursor } } }", {"id": gid("User", 1)}))
    print("wos inline bad", await sam.raw("{ workOrders(customerId: \"!!\") { edges { cursor } } }"))
    print("search long", await sam.raw("query($s: String) { workOrders(search: $s) { edges { cursor } } }", {"s": "x" * 101}))
    print("users first", await ada.raw("{ users(first: 101) { edges { cursor } } }"))
    print("customers after", await sam.raw("{ customers(after: \"zz\") { edges { cursor } } }"))
    body = b'{"query": "query($i: JSON) { __typename }", "variables": {"i": ' + b"[" * 50000 + b"]" * 50000 + b"}}"
    r = await http.post(api.url, content=body, headers={"content-type": "application/json", "authorization": "Bearer " + shop.tokens["sam"]})
    print("deep json", r.status_code, r.text[:300])
    nested = {}
    cur = nested
    for _ in range(DEPTH):
        cur["a"] = {}
        cur = cur["a"]
    CWO = "mutation($i: CreateWorkOrderInput!) { createWorkOrder(input: $i) { workOrder { id } userErrors { code field message } } }"
    for DEPTH in [200, 500, 900, 990]:
      nested = {}
      cur = nested
      for _ in range(DEPTH):
        cur["a"] = {}
        cur = cur["a"]
      try:
        r = await http.post(api.url, content=json.dumps({"query": CWO, "variables": {"i": {"customerId": gid("Customer", shop.customer_id), "departmentCodes": [], "details": nested}}}), headers={"content-type": "application/json", "authorization": "Bearer " + shop.tokens["sam"]})
        print("deep details", DEPTH, r.status_code, r.text[:300])
      except Exception as e:
        print("deep details exc", e)
    aliases = " ".join(f"a{i}: __typename" for i in range(40))
    print("aliases", await sam.raw("{ " + aliases + " }"))
    print("depth", await sam.raw("{ workOrders { edges { node { tasks { workOrder { tasks { workOrder { tasks { workOrder { tasks { id } } } } } } } } } } }"))
    r = await http.get(api.url + "?query=" + "mutation{__typename}")
    print("get mutation", r.status_code, r.text[:200])
    r = await http.post(api.url, content=b"query { __typename }", headers={"content-type": "text/plain"})
    print("text/plain", r.status_code, r.text[:200])
    r = await http.post(api.url, content=b'{"query": 5}', headers={"content-type": "application/json"})
    print("query int", r.status_code, r.text[:200])
    r = await http.post(api.url, content=b'{"query": "{ __typename }", "variables": 5}', headers={"content-type": "application/json"})
    print("vars int", r.status_code, r.text[:200])
    print("big details", await sam.raw(CWO, {"i": {"customerId": gid("Customer", shop.customer_id), "departmentCodes": [], "details": {"a": "x" * 20000}}}))
    print("login long", await api.raw("mutation($e: String!) { login(input: {email: $e, password: \"whatever1\"}) { token userErrors { code field message } } }", {"e": "a" * 300}))
    print("node wrong", await pat.raw("query($id: ID!) { node(id: $id) { id } }", {"id": gid("Customer", 9999)}))
    print("inline dept node", await pat.raw("{ departments { id code } }"))
