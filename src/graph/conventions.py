"""The descriptions that follow from the API's conventions (docs/api.md, "Conventions"),
said once here rather than on each of the dozens of members that share them: a
mutation's `input` argument, its input and payload types and the payload's fields
(`userErrors`, `changed`, the object), connection types and their paging arguments.
A member's own description, when it has one, wins."""

from graphql import GraphQLField, GraphQLNamedType, GraphQLObjectType, GraphQLSchema, get_named_type

INPUT = (
    "What to do. Every problem with it is answered in the payload's `userErrors`, each at "
    "its field, and then nothing is written."
)
USER_ERRORS = (
    "The expected failures, one per problem of the input; when there is one, the "
    "payload's object is null and nothing was written. Empty on success."
)
CHANGED = "False when the outcome already held: nothing was written."
PAYLOAD_OBJECT = "The {type} as the mutation left it; null when there are `userErrors`."
PAGING = {
    "first": "How many items to answer, 0 to 100 (20 when not given).",
    "after": "The `endCursor` of the page before: answers the items after it (from the "
    "start when not given). A cursor of another connection is BAD_REQUEST.",
    "last": "How many items to answer from the end, 0 to 100.",
    "before": "The `startCursor` of the page after: answers the items before it.",
}


def _fill(member: GraphQLNamedType | GraphQLField, description: str) -> None:
    if not member.description:
        member.description = description


def describe_conventions(schema: GraphQLSchema) -> None:
    """Gives the conventional members without a description of their own theirs."""
    for name, mutation in (schema.mutation_type.fields if schema.mutation_type else {}).items():
        payload = get_named_type(mutation.type)
        if isinstance(payload, GraphQLObjectType):
            _fill(payload, f"What `{name}` answers: what it made or changed, or `userErrors`.")
            for field_name, field in payload.fields.items():
                if field_name == "userErrors":
                    _fill(field, USER_ERRORS)
                elif field_name == "changed":
                    _fill(field, CHANGED)
                elif isinstance(field.type, GraphQLObjectType):
                    _fill(field, PAYLOAD_OBJECT.format(type=field.type.name))
        if "input" in mutation.args:
            argument = mutation.args["input"]
            argument.description = argument.description or INPUT
            _fill(get_named_type(argument.type), f"What `{name}` is given.")
    for type_ in schema.type_map.values():
        if not isinstance(type_, GraphQLObjectType) or type_.name.startswith("__"):
            continue
        if type_.name.endswith("Connection") and "edges" in type_.fields:
            _fill(type_, "A page of a list: a Relay cursor connection (`edges`, `pageInfo`).")
        for field in type_.fields.values():
            if get_named_type(field.type).name.endswith("Connection"):
                for argument_name, argument in field.args.items():
                    if argument_name in PAGING and not argument.description:
                        argument.description = PAGING[argument_name]
