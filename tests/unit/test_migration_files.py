"""The migrations' files, as Alembic reads them: a server starting on a database at the
head knows the head from the file names alone (db.migrate.head_revision), without
loading Alembic, so each revision must be its file's number and follow the one before."""

from alembic.script import ScriptDirectory

from db import migrate


def test_each_revision_is_its_files_number_and_follows_the_one_before() -> None:
    scripts = ScriptDirectory.from_config(migrate.alembic_config(""))
    chain = list(reversed(list(scripts.walk_revisions())))
    assert len(chain) == len(list((migrate.MIGRATIONS / "versions").glob("*.py")))
    previous = None
    for script in chain:
        assert script.path is not None
        assert script.revision == script.path.rsplit("/", 1)[-1][:4], script.path
        assert script.down_revision == previous, script.path
        previous = script.revision
    assert chain[0].revision == "0001"


def test_the_head_from_the_file_names_is_alembics() -> None:
    head = ScriptDirectory.from_config(migrate.alembic_config("")).get_current_head()
    assert migrate.head_revision() == head
    assert int(migrate.head_revision()) == len(list((migrate.MIGRATIONS / "versions").glob("*.py")))
