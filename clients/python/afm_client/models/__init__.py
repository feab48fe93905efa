"""Contains all the data models used in inputs/outputs"""

from .afm_profile_host import AfmProfileHost
from .afm_profile_sample import AfmProfileSample
from .afm_profile_type_0 import AfmProfileType0
from .afm_profile_type_0_object import AfmProfileType0Object
from .assistant_content_message import AssistantContentMessage
from .assistant_content_message_role import AssistantContentMessageRole
from .assistant_message import AssistantMessage
from .assistant_message_role import AssistantMessageRole
from .assistant_tool_calls_message import AssistantToolCallsMessage
from .assistant_tool_calls_message_role import AssistantToolCallsMessageRole
from .audio_content_part import AudioContentPart
from .audio_content_part_input_audio import AudioContentPartInputAudio
from .audio_content_part_type import AudioContentPartType
from .batch import Batch
from .batch_completion_error import BatchCompletionError
from .batch_completion_error_object import BatchCompletionErrorObject
from .batch_completion_item import BatchCompletionItem
from .batch_completions_request import BatchCompletionsRequest
from .batch_error import BatchError
from .batch_errors_type_0 import BatchErrorsType0
from .batch_errors_type_0_object import BatchErrorsType0Object
from .batch_list import BatchList
from .batch_list_object import BatchListObject
from .batch_metadata_type_0 import BatchMetadataType0
from .batch_object import BatchObject
from .batch_request_counts import BatchRequestCounts
from .batch_status import BatchStatus
from .chat_choice import ChatChoice
from .chat_chunk_choice import ChatChunkChoice
from .chat_chunk_choice_finish_reason_type_1 import ChatChunkChoiceFinishReasonType1
from .chat_chunk_choice_finish_reason_type_2_type_1 import ChatChunkChoiceFinishReasonType2Type1
from .chat_chunk_choice_finish_reason_type_3_type_1 import ChatChunkChoiceFinishReasonType3Type1
from .chat_completion import ChatCompletion
from .chat_completion_cancellation import ChatCompletionCancellation
from .chat_completion_cancellation_object import ChatCompletionCancellationObject
from .chat_completion_chunk import ChatCompletionChunk
from .chat_completion_chunk_object import ChatCompletionChunkObject
from .chat_completion_object import ChatCompletionObject
from .chat_completion_request import ChatCompletionRequest
from .chat_completion_request_chat_template_kwargs_type_0 import ChatCompletionRequestChatTemplateKwargsType0
from .chat_completion_request_reasoning_effort_type_1 import ChatCompletionRequestReasoningEffortType1
from .chat_completion_request_reasoning_effort_type_2_type_1 import ChatCompletionRequestReasoningEffortType2Type1
from .chat_completion_request_reasoning_effort_type_3_type_1 import ChatCompletionRequestReasoningEffortType3Type1
from .chat_delta import ChatDelta
from .chat_delta_role import ChatDeltaRole
from .choice_logprobs_type_0 import ChoiceLogprobsType0
from .completion import Completion
from .completion_choice import CompletionChoice
from .completion_choice_finish_reason_type_1 import CompletionChoiceFinishReasonType1
from .completion_choice_finish_reason_type_2_type_1 import CompletionChoiceFinishReasonType2Type1
from .completion_choice_finish_reason_type_3_type_1 import CompletionChoiceFinishReasonType3Type1
from .completion_chunk import CompletionChunk
from .completion_chunk_object import CompletionChunkObject
from .completion_logprobs_type_0 import CompletionLogprobsType0
from .completion_object import CompletionObject
from .completion_request import CompletionRequest
from .count_tokens_request import CountTokensRequest
from .count_tokens_request_system_type_1_item import CountTokensRequestSystemType1Item
from .count_tokens_request_system_type_1_item_type import CountTokensRequestSystemType1ItemType
from .count_tokens_response import CountTokensResponse
from .cpu_weights_kind import CpuWeightsKind
from .cpu_weights_mode import CpuWeightsMode
from .cpu_weights_type_0 import CpuWeightsType0
from .create_batch_request import CreateBatchRequest
from .create_batch_request_completion_window import CreateBatchRequestCompletionWindow
from .create_batch_request_endpoint import CreateBatchRequestEndpoint
from .create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0
from .create_chat_completion_xafm_profile import CreateChatCompletionXAFMProfile
from .create_file_request import CreateFileRequest
from .create_file_request_purpose import CreateFileRequestPurpose
from .create_response_request import CreateResponseRequest
from .create_response_request_client_metadata_type_0 import CreateResponseRequestClientMetadataType0
from .create_response_request_metadata_type_0 import CreateResponseRequestMetadataType0
from .create_response_request_truncation_type_1 import CreateResponseRequestTruncationType1
from .create_response_request_truncation_type_2_type_1 import CreateResponseRequestTruncationType2Type1
from .create_response_request_truncation_type_3_type_1 import CreateResponseRequestTruncationType3Type1
from .deleted_file import DeletedFile
from .deleted_file_object import DeletedFileObject
from .deleted_response import DeletedResponse
from .deleted_response_object import DeletedResponseObject
from .detokenize_request import DetokenizeRequest
from .detokenize_response import DetokenizeResponse
from .embedding import Embedding
from .embedding_list import EmbeddingList
from .embedding_list_object import EmbeddingListObject
from .embedding_list_usage import EmbeddingListUsage
from .embedding_object import EmbeddingObject
from .embedding_request import EmbeddingRequest
from .embedding_request_encoding_format import EmbeddingRequestEncodingFormat
from .error_detail import ErrorDetail
from .error_response import ErrorResponse
from .file_list import FileList
from .file_list_object import FileListObject
from .file_object import FileObject
from .file_object_object import FileObjectObject
from .file_object_purpose import FileObjectPurpose
from .file_object_status import FileObjectStatus
from .finish_reason import FinishReason
from .function_definition import FunctionDefinition
from .function_definition_parameters import FunctionDefinitionParameters
from .generation_default_source import GenerationDefaultSource
from .generation_default_sources import GenerationDefaultSources
from .generation_defaults_type_0 import GenerationDefaultsType0
from .health import Health
from .health_backend import HealthBackend
from .health_backend_name import HealthBackendName
from .health_status import HealthStatus
from .image_content_part import ImageContentPart
from .image_content_part_image_url import ImageContentPartImageUrl
from .image_content_part_image_url_detail import ImageContentPartImageUrlDetail
from .image_content_part_type import ImageContentPartType
from .json_schema_format import JsonSchemaFormat
from .json_schema_format_schema import JsonSchemaFormatSchema
from .list_files_order import ListFilesOrder
from .list_response_input_items_order import ListResponseInputItemsOrder
from .messages_assistant_message_param import MessagesAssistantMessageParam
from .messages_assistant_message_param_role import MessagesAssistantMessageParamRole
from .messages_cache_control_type_0 import MessagesCacheControlType0
from .messages_cache_control_type_0_ttl import MessagesCacheControlType0Ttl
from .messages_cache_control_type_0_type import MessagesCacheControlType0Type
from .messages_client_tool import MessagesClientTool
from .messages_client_tool_input_schema import MessagesClientToolInputSchema
from .messages_client_tool_type_type_1 import MessagesClientToolTypeType1
from .messages_client_tool_type_type_2_type_1 import MessagesClientToolTypeType2Type1
from .messages_client_tool_type_type_3_type_1 import MessagesClientToolTypeType3Type1
from .messages_content_block_delta_event import MessagesContentBlockDeltaEvent
from .messages_content_block_delta_event_type import MessagesContentBlockDeltaEventType
from .messages_content_block_start_event import MessagesContentBlockStartEvent
from .messages_content_block_start_event_type import MessagesContentBlockStartEventType
from .messages_content_block_stop_event import MessagesContentBlockStopEvent
from .messages_content_block_stop_event_type import MessagesContentBlockStopEventType
from .messages_context_edit import MessagesContextEdit
from .messages_context_edit_keep_type_0 import MessagesContextEditKeepType0
from .messages_context_edit_keep_type_1 import MessagesContextEditKeepType1
from .messages_context_management_type_0 import MessagesContextManagementType0
from .messages_count_tokens_request import MessagesCountTokensRequest
from .messages_count_tokens_response import MessagesCountTokensResponse
from .messages_error_response import MessagesErrorResponse
from .messages_error_response_error import MessagesErrorResponseError
from .messages_error_response_type import MessagesErrorResponseType
from .messages_input_json_delta import MessagesInputJsonDelta
from .messages_input_json_delta_type import MessagesInputJsonDeltaType
from .messages_message import MessagesMessage
from .messages_message_delta_event import MessagesMessageDeltaEvent
from .messages_message_delta_event_delta import MessagesMessageDeltaEventDelta
from .messages_message_delta_event_delta_stop_reason import MessagesMessageDeltaEventDeltaStopReason
from .messages_message_delta_event_type import MessagesMessageDeltaEventType
from .messages_message_role import MessagesMessageRole
from .messages_message_start_event import MessagesMessageStartEvent
from .messages_message_start_event_type import MessagesMessageStartEventType
from .messages_message_stop_event import MessagesMessageStopEvent
from .messages_message_stop_event_type import MessagesMessageStopEventType
from .messages_message_stop_reason_type_1 import MessagesMessageStopReasonType1
from .messages_message_stop_reason_type_2_type_1 import MessagesMessageStopReasonType2Type1
from .messages_message_stop_reason_type_3_type_1 import MessagesMessageStopReasonType3Type1
from .messages_message_type import MessagesMessageType
from .messages_metadata import MessagesMetadata
from .messages_output_config_type_0 import MessagesOutputConfigType0
from .messages_output_config_type_0_effort_type_1 import MessagesOutputConfigType0EffortType1
from .messages_output_config_type_0_effort_type_2_type_1 import MessagesOutputConfigType0EffortType2Type1
from .messages_output_config_type_0_effort_type_3_type_1 import MessagesOutputConfigType0EffortType3Type1
from .messages_ping_event import MessagesPingEvent
from .messages_ping_event_type import MessagesPingEventType
from .messages_redacted_thinking_block_param import MessagesRedactedThinkingBlockParam
from .messages_redacted_thinking_block_param_type import MessagesRedactedThinkingBlockParamType
from .messages_request import MessagesRequest
from .messages_server_tool import MessagesServerTool
from .messages_signature_delta import MessagesSignatureDelta
from .messages_signature_delta_type import MessagesSignatureDeltaType
from .messages_sse_event import MessagesSSEEvent
from .messages_system_message_param import MessagesSystemMessageParam
from .messages_system_message_param_role import MessagesSystemMessageParamRole
from .messages_text_block import MessagesTextBlock
from .messages_text_block_param import MessagesTextBlockParam
from .messages_text_block_param_type import MessagesTextBlockParamType
from .messages_text_block_type import MessagesTextBlockType
from .messages_text_delta import MessagesTextDelta
from .messages_text_delta_type import MessagesTextDeltaType
from .messages_thinking_block import MessagesThinkingBlock
from .messages_thinking_block_param import MessagesThinkingBlockParam
from .messages_thinking_block_param_type import MessagesThinkingBlockParamType
from .messages_thinking_block_type import MessagesThinkingBlockType
from .messages_thinking_config import MessagesThinkingConfig
from .messages_thinking_config_display import MessagesThinkingConfigDisplay
from .messages_thinking_config_type import MessagesThinkingConfigType
from .messages_thinking_delta import MessagesThinkingDelta
from .messages_thinking_delta_type import MessagesThinkingDeltaType
from .messages_tool_choice_any import MessagesToolChoiceAny
from .messages_tool_choice_any_type import MessagesToolChoiceAnyType
from .messages_tool_choice_auto import MessagesToolChoiceAuto
from .messages_tool_choice_auto_type import MessagesToolChoiceAutoType
from .messages_tool_choice_none import MessagesToolChoiceNone
from .messages_tool_choice_none_type import MessagesToolChoiceNoneType
from .messages_tool_choice_tool import MessagesToolChoiceTool
from .messages_tool_choice_tool_type import MessagesToolChoiceToolType
from .messages_tool_reference_block_param import MessagesToolReferenceBlockParam
from .messages_tool_reference_block_param_type import MessagesToolReferenceBlockParamType
from .messages_tool_result_block_param import MessagesToolResultBlockParam
from .messages_tool_result_block_param_type import MessagesToolResultBlockParamType
from .messages_tool_use_block import MessagesToolUseBlock
from .messages_tool_use_block_input import MessagesToolUseBlockInput
from .messages_tool_use_block_param import MessagesToolUseBlockParam
from .messages_tool_use_block_param_input import MessagesToolUseBlockParamInput
from .messages_tool_use_block_param_type import MessagesToolUseBlockParamType
from .messages_tool_use_block_type import MessagesToolUseBlockType
from .messages_unsupported_block_param import MessagesUnsupportedBlockParam
from .messages_unsupported_block_param_type import MessagesUnsupportedBlockParamType
from .messages_usage import MessagesUsage
from .messages_user_message_param import MessagesUserMessageParam
from .messages_user_message_param_role import MessagesUserMessageParamRole
from .model import Model
from .model_capabilities_type_0 import ModelCapabilitiesType0
from .model_list import ModelList
from .model_list_object import ModelListObject
from .model_object import ModelObject
from .model_type import ModelType
from .named_tool_choice import NamedToolChoice
from .named_tool_choice_function import NamedToolChoiceFunction
from .named_tool_choice_type import NamedToolChoiceType
from .ocr_request import OcrRequest
from .ocr_request_mode import OcrRequestMode
from .ocr_request_recognition_level import OcrRequestRecognitionLevel
from .ocr_result import OcrResult
from .ocr_result_lines_item import OcrResultLinesItem
from .response_arguments_delta_event import ResponseArgumentsDeltaEvent
from .response_arguments_delta_event_type import ResponseArgumentsDeltaEventType
from .response_arguments_done_event import ResponseArgumentsDoneEvent
from .response_arguments_done_event_type import ResponseArgumentsDoneEventType
from .response_content_part_event import ResponseContentPartEvent
from .response_content_part_event_type import ResponseContentPartEventType
from .response_error_event import ResponseErrorEvent
from .response_error_event_type import ResponseErrorEventType
from .response_error_type_0 import ResponseErrorType0
from .response_format_json_object import ResponseFormatJsonObject
from .response_format_json_object_type import ResponseFormatJsonObjectType
from .response_format_json_schema import ResponseFormatJsonSchema
from .response_format_json_schema_type import ResponseFormatJsonSchemaType
from .response_format_text import ResponseFormatText
from .response_format_text_type import ResponseFormatTextType
from .response_function_call import ResponseFunctionCall
from .response_function_call_input_item import ResponseFunctionCallInputItem
from .response_function_call_input_item_type import ResponseFunctionCallInputItemType
from .response_function_call_output_input_item import ResponseFunctionCallOutputInputItem
from .response_function_call_output_input_item_type import ResponseFunctionCallOutputInputItemType
from .response_function_call_status import ResponseFunctionCallStatus
from .response_function_call_type import ResponseFunctionCallType
from .response_function_tool import ResponseFunctionTool
from .response_function_tool_choice import ResponseFunctionToolChoice
from .response_function_tool_choice_type import ResponseFunctionToolChoiceType
from .response_function_tool_parameters_type_0 import ResponseFunctionToolParametersType0
from .response_function_tool_type import ResponseFunctionToolType
from .response_hosted_tool import ResponseHostedTool
from .response_hosted_tool_choice import ResponseHostedToolChoice
from .response_incomplete_details_type_0 import ResponseIncompleteDetailsType0
from .response_incomplete_details_type_0_reason import ResponseIncompleteDetailsType0Reason
from .response_input_item_list import ResponseInputItemList
from .response_input_item_list_object import ResponseInputItemListObject
from .response_input_message_item import ResponseInputMessageItem
from .response_input_message_item_role import ResponseInputMessageItemRole
from .response_input_message_item_type import ResponseInputMessageItemType
from .response_input_tokens_details import ResponseInputTokensDetails
from .response_lifecycle_event import ResponseLifecycleEvent
from .response_lifecycle_event_type import ResponseLifecycleEventType
from .response_namespace_function import ResponseNamespaceFunction
from .response_namespace_function_parameters_type_0 import ResponseNamespaceFunctionParametersType0
from .response_namespace_function_type_type_1 import ResponseNamespaceFunctionTypeType1
from .response_namespace_function_type_type_2_type_1 import ResponseNamespaceFunctionTypeType2Type1
from .response_namespace_function_type_type_3_type_1 import ResponseNamespaceFunctionTypeType3Type1
from .response_namespace_other_tool import ResponseNamespaceOtherTool
from .response_namespace_tool import ResponseNamespaceTool
from .response_namespace_tool_type import ResponseNamespaceToolType
from .response_object import ResponseObject
from .response_object_metadata_type_0 import ResponseObjectMetadataType0
from .response_object_object import ResponseObjectObject
from .response_object_reasoning_type_0 import ResponseObjectReasoningType0
from .response_object_status import ResponseObjectStatus
from .response_object_text import ResponseObjectText
from .response_object_tool_choice_type_0 import ResponseObjectToolChoiceType0
from .response_object_truncation import ResponseObjectTruncation
from .response_other_content_part import ResponseOtherContentPart
from .response_output_item_event import ResponseOutputItemEvent
from .response_output_item_event_type import ResponseOutputItemEventType
from .response_output_message import ResponseOutputMessage
from .response_output_message_role import ResponseOutputMessageRole
from .response_output_message_status import ResponseOutputMessageStatus
from .response_output_message_type import ResponseOutputMessageType
from .response_output_text import ResponseOutputText
from .response_output_text_annotations_item import ResponseOutputTextAnnotationsItem
from .response_output_text_logprobs_item import ResponseOutputTextLogprobsItem
from .response_output_text_type import ResponseOutputTextType
from .response_output_tokens_details import ResponseOutputTokensDetails
from .response_reasoning_config_type_0 import ResponseReasoningConfigType0
from .response_reasoning_config_type_0_effort_type_1 import ResponseReasoningConfigType0EffortType1
from .response_reasoning_config_type_0_effort_type_2_type_1 import ResponseReasoningConfigType0EffortType2Type1
from .response_reasoning_config_type_0_effort_type_3_type_1 import ResponseReasoningConfigType0EffortType3Type1
from .response_reasoning_input_item import ResponseReasoningInputItem
from .response_reasoning_input_item_type import ResponseReasoningInputItemType
from .response_reasoning_item import ResponseReasoningItem
from .response_reasoning_item_status import ResponseReasoningItemStatus
from .response_reasoning_item_summary_item import ResponseReasoningItemSummaryItem
from .response_reasoning_item_type import ResponseReasoningItemType
from .response_reasoning_text import ResponseReasoningText
from .response_reasoning_text_type import ResponseReasoningTextType
from .response_stored_input_item import ResponseStoredInputItem
from .response_stored_input_item_role import ResponseStoredInputItemRole
from .response_stored_input_item_type import ResponseStoredInputItemType
from .response_text_config_type_0 import ResponseTextConfigType0
from .response_text_content_part import ResponseTextContentPart
from .response_text_content_part_type import ResponseTextContentPartType
from .response_text_delta_event import ResponseTextDeltaEvent
from .response_text_delta_event_logprobs_item import ResponseTextDeltaEventLogprobsItem
from .response_text_delta_event_type import ResponseTextDeltaEventType
from .response_text_done_event import ResponseTextDoneEvent
from .response_text_done_event_logprobs_item import ResponseTextDoneEventLogprobsItem
from .response_text_done_event_type import ResponseTextDoneEventType
from .response_text_format_json_object import ResponseTextFormatJsonObject
from .response_text_format_json_object_type import ResponseTextFormatJsonObjectType
from .response_text_format_json_schema import ResponseTextFormatJsonSchema
from .response_text_format_json_schema_schema import ResponseTextFormatJsonSchemaSchema
from .response_text_format_json_schema_type import ResponseTextFormatJsonSchemaType
from .response_text_format_text import ResponseTextFormatText
from .response_text_format_text_type import ResponseTextFormatTextType
from .response_tool_choice_type_0_type_1 import ResponseToolChoiceType0Type1
from .response_tool_choice_type_0_type_2_type_1 import ResponseToolChoiceType0Type2Type1
from .response_tool_choice_type_0_type_3_type_1 import ResponseToolChoiceType0Type3Type1
from .response_usage_type_0 import ResponseUsageType0
from .shard_rank import ShardRank
from .shard_rank_role import ShardRankRole
from .shard_rank_status import ShardRankStatus
from .sharding_mode import ShardingMode
from .sharding_status import ShardingStatus
from .sharding_type_0 import ShardingType0
from .speculative_profile_type_0 import SpeculativeProfileType0
from .speculative_profile_type_0_method import SpeculativeProfileType0Method
from .speech_request import SpeechRequest
from .speech_request_response_format import SpeechRequestResponseFormat
from .speech_request_stream_format import SpeechRequestStreamFormat
from .speech_request_voice_type_1 import SpeechRequestVoiceType1
from .speech_stream_event import SpeechStreamEvent
from .speech_stream_event_error import SpeechStreamEventError
from .speech_stream_event_type import SpeechStreamEventType
from .sse_event import SSEEvent
from .stream_options_type_0 import StreamOptionsType0
from .system_message import SystemMessage
from .system_message_role import SystemMessageRole
from .text_content_part import TextContentPart
from .text_content_part_type import TextContentPartType
from .timings import Timings
from .token_alternatives import TokenAlternatives
from .token_logprob import TokenLogprob
from .tokenize_messages_request import TokenizeMessagesRequest
from .tokenize_messages_request_chat_template_kwargs import TokenizeMessagesRequestChatTemplateKwargs
from .tokenize_prompt_request import TokenizePromptRequest
from .tokenize_response import TokenizeResponse
from .tokenize_text_request import TokenizeTextRequest
from .tool import Tool
from .tool_call import ToolCall
from .tool_call_delta import ToolCallDelta
from .tool_call_delta_function import ToolCallDeltaFunction
from .tool_call_delta_type import ToolCallDeltaType
from .tool_call_function import ToolCallFunction
from .tool_call_type import ToolCallType
from .tool_choice_type_0_type_1 import ToolChoiceType0Type1
from .tool_choice_type_0_type_2_type_1 import ToolChoiceType0Type2Type1
from .tool_choice_type_0_type_3_type_1 import ToolChoiceType0Type3Type1
from .tool_message import ToolMessage
from .tool_message_role import ToolMessageRole
from .tool_type import ToolType
from .top_logprob import TopLogprob
from .transcription import Transcription
from .transcription_request import TranscriptionRequest
from .transcription_request_response_format import TranscriptionRequestResponseFormat
from .transcription_request_timestamp_granularities_item import TranscriptionRequestTimestampGranularitiesItem
from .transcription_segment import TranscriptionSegment
from .transcription_stream_event import TranscriptionStreamEvent
from .transcription_stream_event_error import TranscriptionStreamEventError
from .transcription_stream_event_type import TranscriptionStreamEventType
from .transcription_usage import TranscriptionUsage
from .transcription_usage_type import TranscriptionUsageType
from .transcription_verbose import TranscriptionVerbose
from .transcription_verbose_task import TranscriptionVerboseTask
from .transcription_word import TranscriptionWord
from .usage import Usage
from .usage_prompt_tokens_details import UsagePromptTokensDetails
from .user_message import UserMessage
from .user_message_role import UserMessageRole
from .voice_list import VoiceList
from .voice_list_data_item import VoiceListDataItem
from .voice_list_object import VoiceListObject

__all__ = (
    "AfmProfileHost",
    "AfmProfileSample",
    "AfmProfileType0",
    "AfmProfileType0Object",
    "AssistantContentMessage",
    "AssistantContentMessageRole",
    "AssistantMessage",
    "AssistantMessageRole",
    "AssistantToolCallsMessage",
    "AssistantToolCallsMessageRole",
    "AudioContentPart",
    "AudioContentPartInputAudio",
    "AudioContentPartType",
    "Batch",
    "BatchCompletionError",
    "BatchCompletionErrorObject",
    "BatchCompletionItem",
    "BatchCompletionsRequest",
    "BatchError",
    "BatchErrorsType0",
    "BatchErrorsType0Object",
    "BatchList",
    "BatchListObject",
    "BatchMetadataType0",
    "BatchObject",
    "BatchRequestCounts",
    "BatchStatus",
    "ChatChoice",
    "ChatChunkChoice",
    "ChatChunkChoiceFinishReasonType1",
    "ChatChunkChoiceFinishReasonType2Type1",
    "ChatChunkChoiceFinishReasonType3Type1",
    "ChatCompletion",
    "ChatCompletionCancellation",
    "ChatCompletionCancellationObject",
    "ChatCompletionChunk",
    "ChatCompletionChunkObject",
    "ChatCompletionObject",
    "ChatCompletionRequest",
    "ChatCompletionRequestChatTemplateKwargsType0",
    "ChatCompletionRequestReasoningEffortType1",
    "ChatCompletionRequestReasoningEffortType2Type1",
    "ChatCompletionRequestReasoningEffortType3Type1",
    "ChatDelta",
    "ChatDeltaRole",
    "ChoiceLogprobsType0",
    "Completion",
    "CompletionChoice",
    "CompletionChoiceFinishReasonType1",
    "CompletionChoiceFinishReasonType2Type1",
    "CompletionChoiceFinishReasonType3Type1",
    "CompletionChunk",
    "CompletionChunkObject",
    "CompletionLogprobsType0",
    "CompletionObject",
    "CompletionRequest",
    "CountTokensRequest",
    "CountTokensRequestSystemType1Item",
    "CountTokensRequestSystemType1ItemType",
    "CountTokensResponse",
    "CpuWeightsKind",
    "CpuWeightsMode",
    "CpuWeightsType0",
    "CreateBatchRequest",
    "CreateBatchRequestCompletionWindow",
    "CreateBatchRequestEndpoint",
    "CreateBatchRequestMetadataType0",
    "CreateChatCompletionXAFMProfile",
    "CreateFileRequest",
    "CreateFileRequestPurpose",
    "CreateResponseRequest",
    "CreateResponseRequestClientMetadataType0",
    "CreateResponseRequestMetadataType0",
    "CreateResponseRequestTruncationType1",
    "CreateResponseRequestTruncationType2Type1",
    "CreateResponseRequestTruncationType3Type1",
    "DeletedFile",
    "DeletedFileObject",
    "DeletedResponse",
    "DeletedResponseObject",
    "DetokenizeRequest",
    "DetokenizeResponse",
    "Embedding",
    "EmbeddingList",
    "EmbeddingListObject",
    "EmbeddingListUsage",
    "EmbeddingObject",
    "EmbeddingRequest",
    "EmbeddingRequestEncodingFormat",
    "ErrorDetail",
    "ErrorResponse",
    "FileList",
    "FileListObject",
    "FileObject",
    "FileObjectObject",
    "FileObjectPurpose",
    "FileObjectStatus",
    "FinishReason",
    "FunctionDefinition",
    "FunctionDefinitionParameters",
    "GenerationDefaultSource",
    "GenerationDefaultSources",
    "GenerationDefaultsType0",
    "Health",
    "HealthBackend",
    "HealthBackendName",
    "HealthStatus",
    "ImageContentPart",
    "ImageContentPartImageUrl",
    "ImageContentPartImageUrlDetail",
    "ImageContentPartType",
    "JsonSchemaFormat",
    "JsonSchemaFormatSchema",
    "ListFilesOrder",
    "ListResponseInputItemsOrder",
    "MessagesAssistantMessageParam",
    "MessagesAssistantMessageParamRole",
    "MessagesCacheControlType0",
    "MessagesCacheControlType0Ttl",
    "MessagesCacheControlType0Type",
    "MessagesClientTool",
    "MessagesClientToolInputSchema",
    "MessagesClientToolTypeType1",
    "MessagesClientToolTypeType2Type1",
    "MessagesClientToolTypeType3Type1",
    "MessagesContentBlockDeltaEvent",
    "MessagesContentBlockDeltaEventType",
    "MessagesContentBlockStartEvent",
    "MessagesContentBlockStartEventType",
    "MessagesContentBlockStopEvent",
    "MessagesContentBlockStopEventType",
    "MessagesContextEdit",
    "MessagesContextEditKeepType0",
    "MessagesContextEditKeepType1",
    "MessagesContextManagementType0",
    "MessagesCountTokensRequest",
    "MessagesCountTokensResponse",
    "MessagesErrorResponse",
    "MessagesErrorResponseError",
    "MessagesErrorResponseType",
    "MessagesInputJsonDelta",
    "MessagesInputJsonDeltaType",
    "MessagesMessage",
    "MessagesMessageDeltaEvent",
    "MessagesMessageDeltaEventDelta",
    "MessagesMessageDeltaEventDeltaStopReason",
    "MessagesMessageDeltaEventType",
    "MessagesMessageRole",
    "MessagesMessageStartEvent",
    "MessagesMessageStartEventType",
    "MessagesMessageStopEvent",
    "MessagesMessageStopEventType",
    "MessagesMessageStopReasonType1",
    "MessagesMessageStopReasonType2Type1",
    "MessagesMessageStopReasonType3Type1",
    "MessagesMessageType",
    "MessagesMetadata",
    "MessagesOutputConfigType0",
    "MessagesOutputConfigType0EffortType1",
    "MessagesOutputConfigType0EffortType2Type1",
    "MessagesOutputConfigType0EffortType3Type1",
    "MessagesPingEvent",
    "MessagesPingEventType",
    "MessagesRedactedThinkingBlockParam",
    "MessagesRedactedThinkingBlockParamType",
    "MessagesRequest",
    "MessagesServerTool",
    "MessagesSignatureDelta",
    "MessagesSignatureDeltaType",
    "MessagesSSEEvent",
    "MessagesSystemMessageParam",
    "MessagesSystemMessageParamRole",
    "MessagesTextBlock",
    "MessagesTextBlockParam",
    "MessagesTextBlockParamType",
    "MessagesTextBlockType",
    "MessagesTextDelta",
    "MessagesTextDeltaType",
    "MessagesThinkingBlock",
    "MessagesThinkingBlockParam",
    "MessagesThinkingBlockParamType",
    "MessagesThinkingBlockType",
    "MessagesThinkingConfig",
    "MessagesThinkingConfigDisplay",
    "MessagesThinkingConfigType",
    "MessagesThinkingDelta",
    "MessagesThinkingDeltaType",
    "MessagesToolChoiceAny",
    "MessagesToolChoiceAnyType",
    "MessagesToolChoiceAuto",
    "MessagesToolChoiceAutoType",
    "MessagesToolChoiceNone",
    "MessagesToolChoiceNoneType",
    "MessagesToolChoiceTool",
    "MessagesToolChoiceToolType",
    "MessagesToolReferenceBlockParam",
    "MessagesToolReferenceBlockParamType",
    "MessagesToolResultBlockParam",
    "MessagesToolResultBlockParamType",
    "MessagesToolUseBlock",
    "MessagesToolUseBlockInput",
    "MessagesToolUseBlockParam",
    "MessagesToolUseBlockParamInput",
    "MessagesToolUseBlockParamType",
    "MessagesToolUseBlockType",
    "MessagesUnsupportedBlockParam",
    "MessagesUnsupportedBlockParamType",
    "MessagesUsage",
    "MessagesUserMessageParam",
    "MessagesUserMessageParamRole",
    "Model",
    "ModelCapabilitiesType0",
    "ModelList",
    "ModelListObject",
    "ModelObject",
    "ModelType",
    "NamedToolChoice",
    "NamedToolChoiceFunction",
    "NamedToolChoiceType",
    "OcrRequest",
    "OcrRequestMode",
    "OcrRequestRecognitionLevel",
    "OcrResult",
    "OcrResultLinesItem",
    "ResponseArgumentsDeltaEvent",
    "ResponseArgumentsDeltaEventType",
    "ResponseArgumentsDoneEvent",
    "ResponseArgumentsDoneEventType",
    "ResponseContentPartEvent",
    "ResponseContentPartEventType",
    "ResponseErrorEvent",
    "ResponseErrorEventType",
    "ResponseErrorType0",
    "ResponseFormatJsonObject",
    "ResponseFormatJsonObjectType",
    "ResponseFormatJsonSchema",
    "ResponseFormatJsonSchemaType",
    "ResponseFormatText",
    "ResponseFormatTextType",
    "ResponseFunctionCall",
    "ResponseFunctionCallInputItem",
    "ResponseFunctionCallInputItemType",
    "ResponseFunctionCallOutputInputItem",
    "ResponseFunctionCallOutputInputItemType",
    "ResponseFunctionCallStatus",
    "ResponseFunctionCallType",
    "ResponseFunctionTool",
    "ResponseFunctionToolChoice",
    "ResponseFunctionToolChoiceType",
    "ResponseFunctionToolParametersType0",
    "ResponseFunctionToolType",
    "ResponseHostedTool",
    "ResponseHostedToolChoice",
    "ResponseIncompleteDetailsType0",
    "ResponseIncompleteDetailsType0Reason",
    "ResponseInputItemList",
    "ResponseInputItemListObject",
    "ResponseInputMessageItem",
    "ResponseInputMessageItemRole",
    "ResponseInputMessageItemType",
    "ResponseInputTokensDetails",
    "ResponseLifecycleEvent",
    "ResponseLifecycleEventType",
    "ResponseNamespaceFunction",
    "ResponseNamespaceFunctionParametersType0",
    "ResponseNamespaceFunctionTypeType1",
    "ResponseNamespaceFunctionTypeType2Type1",
    "ResponseNamespaceFunctionTypeType3Type1",
    "ResponseNamespaceOtherTool",
    "ResponseNamespaceTool",
    "ResponseNamespaceToolType",
    "ResponseObject",
    "ResponseObjectMetadataType0",
    "ResponseObjectObject",
    "ResponseObjectReasoningType0",
    "ResponseObjectStatus",
    "ResponseObjectText",
    "ResponseObjectToolChoiceType0",
    "ResponseObjectTruncation",
    "ResponseOtherContentPart",
    "ResponseOutputItemEvent",
    "ResponseOutputItemEventType",
    "ResponseOutputMessage",
    "ResponseOutputMessageRole",
    "ResponseOutputMessageStatus",
    "ResponseOutputMessageType",
    "ResponseOutputText",
    "ResponseOutputTextAnnotationsItem",
    "ResponseOutputTextLogprobsItem",
    "ResponseOutputTextType",
    "ResponseOutputTokensDetails",
    "ResponseReasoningConfigType0",
    "ResponseReasoningConfigType0EffortType1",
    "ResponseReasoningConfigType0EffortType2Type1",
    "ResponseReasoningConfigType0EffortType3Type1",
    "ResponseReasoningInputItem",
    "ResponseReasoningInputItemType",
    "ResponseReasoningItem",
    "ResponseReasoningItemStatus",
    "ResponseReasoningItemSummaryItem",
    "ResponseReasoningItemType",
    "ResponseReasoningText",
    "ResponseReasoningTextType",
    "ResponseStoredInputItem",
    "ResponseStoredInputItemRole",
    "ResponseStoredInputItemType",
    "ResponseTextConfigType0",
    "ResponseTextContentPart",
    "ResponseTextContentPartType",
    "ResponseTextDeltaEvent",
    "ResponseTextDeltaEventLogprobsItem",
    "ResponseTextDeltaEventType",
    "ResponseTextDoneEvent",
    "ResponseTextDoneEventLogprobsItem",
    "ResponseTextDoneEventType",
    "ResponseTextFormatJsonObject",
    "ResponseTextFormatJsonObjectType",
    "ResponseTextFormatJsonSchema",
    "ResponseTextFormatJsonSchemaSchema",
    "ResponseTextFormatJsonSchemaType",
    "ResponseTextFormatText",
    "ResponseTextFormatTextType",
    "ResponseToolChoiceType0Type1",
    "ResponseToolChoiceType0Type2Type1",
    "ResponseToolChoiceType0Type3Type1",
    "ResponseUsageType0",
    "ShardingMode",
    "ShardingStatus",
    "ShardingType0",
    "ShardRank",
    "ShardRankRole",
    "ShardRankStatus",
    "SpeculativeProfileType0",
    "SpeculativeProfileType0Method",
    "SpeechRequest",
    "SpeechRequestResponseFormat",
    "SpeechRequestStreamFormat",
    "SpeechRequestVoiceType1",
    "SpeechStreamEvent",
    "SpeechStreamEventError",
    "SpeechStreamEventType",
    "SSEEvent",
    "StreamOptionsType0",
    "SystemMessage",
    "SystemMessageRole",
    "TextContentPart",
    "TextContentPartType",
    "Timings",
    "TokenAlternatives",
    "TokenizeMessagesRequest",
    "TokenizeMessagesRequestChatTemplateKwargs",
    "TokenizePromptRequest",
    "TokenizeResponse",
    "TokenizeTextRequest",
    "TokenLogprob",
    "Tool",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallDeltaFunction",
    "ToolCallDeltaType",
    "ToolCallFunction",
    "ToolCallType",
    "ToolChoiceType0Type1",
    "ToolChoiceType0Type2Type1",
    "ToolChoiceType0Type3Type1",
    "ToolMessage",
    "ToolMessageRole",
    "ToolType",
    "TopLogprob",
    "Transcription",
    "TranscriptionRequest",
    "TranscriptionRequestResponseFormat",
    "TranscriptionRequestTimestampGranularitiesItem",
    "TranscriptionSegment",
    "TranscriptionStreamEvent",
    "TranscriptionStreamEventError",
    "TranscriptionStreamEventType",
    "TranscriptionUsage",
    "TranscriptionUsageType",
    "TranscriptionVerbose",
    "TranscriptionVerboseTask",
    "TranscriptionWord",
    "Usage",
    "UsagePromptTokensDetails",
    "UserMessage",
    "UserMessageRole",
    "VoiceList",
    "VoiceListDataItem",
    "VoiceListObject",
)
