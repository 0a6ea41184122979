/**
 * The engine's text side for code outside `main/engine/`: chat messages and tools as the chat
 * template takes them, the parsed tool calls the output parser gives, and the conversion from
 * OpenAI's wire messages. Nothing here loads tfjs, so the HTTP thread imports it freely.
 */
export type { ChatMessage, ToolSpec } from './chatTemplate.js';
export type { ParsedToolCall } from './chatOutputParser.js';
export { MessageFormatError, messageText, toChatMessages, toToolSpecs, withHint } from './openaiMessages.js';
