// Preact + htm, bound once: every component module imports from here.
import { Fragment, createContext, h, render } from "preact";
import {
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
} from "preact/hooks";
import htm from "htm";

export const html = htm.bind(h);
export {
  Fragment,
  createContext,
  h,
  render,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useReducer,
  useRef,
  useState,
};
