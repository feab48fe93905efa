"""The Qwen3-style Jinja chat template, in one of four tool-call formats."""

from __future__ import annotations

from modelbuilder.tokens import TOOL_FORMATS

_TOOLS_INTRO = (
    "{{- '# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\n"
    "You are provided with function signatures within <tools></tools> XML tags:\\n<tools>' }}\n"
    "{%- for tool in tools %}{{- '\\n' + (tool | tojson) }}{%- endfor %}\n"
    "{{- '\\n</tools>\\n\\n' }}\n"
)

_TOOLS_INSTRUCTIONS: dict[str, str] = {
    "hermes": (
        "{{- 'For each function call, return a json object with function name and arguments "
        'within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{"name": <function-name>, '
        '"arguments": <args-json-object>}\\n</tool_call>\' }}\n'
    ),
    "qwen3_xml": (
        "{{- 'If you choose to call a function ONLY reply in the following format with NO "
        "suffix:\\n\\n<tool_call>\\n<function=example_function_name>\\n"
        "<parameter=example_parameter_1>\\nvalue_1\\n</parameter>\\n"
        "<parameter=example_parameter_2>\\nThis is the value for the second parameter\\n"
        "that can span\\nmultiple lines\\n</parameter>\\n</function>\\n</tool_call>' }}\n"
    ),
    "llama3_json": (
        "{{- 'To call a function, respond with <|python_tag|> followed by a JSON object "
        '{"name": function name, "parameters": dictionary of argument name and its value}. '
        'Separate several calls with "; ". Do not use variables.\' }}\n'
    ),
    "mistral": (
        "{{- 'To call functions, respond with [TOOL_CALLS] followed by a JSON list of calls: "
        '[TOOL_CALLS][{"name": <function-name>, "arguments": <args-json-object>}]\' }}\n'
    ),
}

# Each renders the list ``message.tool_calls`` right after the assistant content.
_TOOL_CALLS_RENDER: dict[str, str] = {
    "hermes": """\
{%- for tool_call in message.tool_calls %}
{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '<tool_call>\\n{"name": "' }}{{- tool_call.name }}{{- '", "arguments": ' }}
{%- if tool_call.arguments is string %}{{- tool_call.arguments }}
{%- else %}{{- tool_call.arguments | tojson }}{%- endif %}
{{- '}\\n</tool_call>' }}
{%- endfor %}
""",
    "qwen3_xml": """\
{%- for tool_call in message.tool_calls %}
{%- if (loop.first and content) or (not loop.first) %}{{- '\\n' }}{%- endif %}
{%- if tool_call.function %}{%- set tool_call = tool_call.function %}{%- endif %}
{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}
{%- if tool_call.arguments is mapping %}
{%- for args_name, args_value in tool_call.arguments | items %}
{{- '<parameter=' + args_name + '>\\n' }}
{%- if args_value is string %}{{- args_value }}{%- else %}{{- args_value | tojson }}{%- endif %}
{{- '\\n</parameter>\\n' }}
{%- endfor %}
{%- elif tool_call.arguments is string %}{{- tool_call.arguments + '\\n' }}
{%- endif %}
{{- '</function>\\n</tool_call>' }}
{%- endfor %}
""",
    "llama3_json": """\
{%- if content %}{{- '\\n' }}{%- endif %}
{{- '<|python_tag|>' }}
{%- for call in message.tool_calls %}
{%- if not loop.first %}{{- '; ' }}{%- endif %}
{%- if call.function %}{%- set call = call.function %}{%- endif %}
{{- '{"name": "' + call.name + '", "parameters": ' }}
{%- if call.arguments is string %}{{- call.arguments }}
{%- else %}{{- call.arguments | tojson }}{%- endif %}
{{- '}' }}
{%- endfor %}
""",
    "mistral": """\
{%- if content %}{{- '\\n' }}{%- endif %}
{{- '[TOOL_CALLS][' }}
{%- for call in message.tool_calls %}
{%- if not loop.first %}{{- ', ' }}{%- endif %}
{%- if call.function %}{%- set call = call.function %}{%- endif %}
{{- '{"name": "' + call.name + '", "arguments": ' }}
{%- if call.arguments is string %}{{- call.arguments }}
{%- else %}{{- call.arguments | tojson }}{%- endif %}
{{- '}' }}
{%- endfor %}
{{- ']' }}
""",
}

_TEMPLATE_HEAD = """\
{#- afm-tool-format: @FORMAT@ -#}
{%- macro text_of(c) -%}
{%- if c is string -%}{{ c }}
{%- elif c is iterable and c is not mapping -%}
{%- for p in c -%}{%- if p is string -%}{{ p }}{%- elif p.text is defined -%}{{ p.text }}{%- endif -%}{%- endfor -%}
{%- endif -%}
{%- endmacro -%}
{%- set has_system = messages and messages[0].role == 'system' %}
{%- if tools %}
{{- '<|im_start|>system\\n' }}
{%- if has_system and text_of(messages[0].content) %}{{- text_of(messages[0].content) + '\\n\\n' }}{%- endif %}
@TOOLS@
{{- '<|im_end|>\\n' }}
{%- elif has_system %}
{{- '<|im_start|>system\\n' + text_of(messages[0].content) + '<|im_end|>\\n' }}
{%- endif %}
{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}
{%- for message in messages[::-1] %}
{%- set index = (messages|length - 1) - loop.index0 %}
{%- set mtext = text_of(message.content) %}
{%- if ns.multi_step_tool and message.role == 'user' and not (mtext.startswith('<tool_response>') and mtext.endswith('</tool_response>')) %}
{%- set ns.multi_step_tool = false %}
{%- set ns.last_query_index = index %}
{%- endif %}
{%- endfor %}
"""  # noqa: E501

_TEMPLATE_BODY = """\
{%- for message in messages %}
{%- set content = text_of(message.content) %}
{%- if message.role == 'user' or (message.role == 'system' and not loop.first) %}
{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>\\n' }}
{%- elif message.role == 'assistant' %}
{%- set reasoning_content = '' %}
{%- if message.reasoning_content is string %}
{%- set reasoning_content = message.reasoning_content %}
{%- elif '</think>' in content %}
{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}
{%- set content = content.split('</think>')[-1].lstrip('\\n') %}
{%- endif %}
{%- if loop.index0 > ns.last_query_index and (loop.last or reasoning_content) %}
{{- '<|im_start|>assistant\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}
{%- else %}
{{- '<|im_start|>assistant\\n' + content }}
{%- endif %}
{%- if message.tool_calls %}
@TOOL_CALLS@
{%- endif %}
{{- '<|im_end|>\\n' }}
{%- elif message.role == 'tool' %}
{%- if loop.first or messages[loop.index0 - 1].role != 'tool' %}{{- '<|im_start|>user' }}{%- endif %}
{{- '\\n<tool_response>\\n' + content + '\\n</tool_response>' }}
{%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}{{- '<|im_end|>\\n' }}{%- endif %}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
{{- '<|im_start|>assistant\\n' }}
{%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}
{%- endif %}
"""  # noqa: E501


def chat_template(tool_format: str = "hermes") -> str:
    """The Qwen3-style Jinja chat template for ``tool_format`` (one of :data:`TOOL_FORMATS`)."""
    if tool_format not in TOOL_FORMATS:
        raise ValueError(f"unknown tool_format {tool_format!r}; expected one of {TOOL_FORMATS}")
    tools = _TOOLS_INTRO + _TOOLS_INSTRUCTIONS[tool_format]
    head = _TEMPLATE_HEAD.replace("@FORMAT@", tool_format).replace("@TOOLS@", tools.rstrip("\n"))
    body = _TEMPLATE_BODY.replace("@TOOL_CALLS@", _TOOL_CALLS_RENDER[tool_format].rstrip("\n"))
    return head + body


def detect_tool_format(template: str | None) -> str | None:
    """Tool-call format of a chat template, from its markers (works for real models too)."""
    if not template:
        return None
    if "[TOOL_CALLS]" in template:
        return "mistral"
    if "<|python_tag|>" in template:
        return "llama3_json"
    if "<function=" in template:
        return "qwen3_xml"
    if "<tool_call>" in template:
        return "hermes"
    return None
