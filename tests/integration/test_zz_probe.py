from db import reads
from tests.integration.conftest import Shop

async def test_probe(shop: Shop) -> None:
    await shop.order(["print"])
    for args in [(0, "2026-01-01T00:00:00+00:00", 1)]:
        try:
            async with shop.engine.connect() as c:
                await reads.queue_page(c, department_id=shop.departments["print"], limit=2, after=args)
        except Exception as e:
            print(type(e), e)
    for a in ["x", 10**25]:
        try:
            async with shop.engine.connect() as c:
                await reads.work_orders_page(c, limit=2, after_id=a, status=None, customer_id=None, search=None)
        except Exception as e:
            print(type(e), str(e)[:300])
