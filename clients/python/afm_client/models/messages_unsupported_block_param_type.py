from enum import StrEnum


class MessagesUnsupportedBlockParamType(StrEnum):
    CODE_EXECUTION_TOOL_RESULT = "code_execution_tool_result"
    CONTAINER_UPLOAD = "container_upload"
    DOCUMENT = "document"
    IMAGE = "image"
    MCP_TOOL_RESULT = "mcp_tool_result"
    MCP_TOOL_USE = "mcp_tool_use"
    SEARCH_RESULT = "search_result"
    SERVER_TOOL_USE = "server_tool_use"
    WEB_FETCH_TOOL_RESULT = "web_fetch_tool_result"
    WEB_SEARCH_TOOL_RESULT = "web_search_tool_result"

    def __str__(self) -> str:
        return str(self.value)
