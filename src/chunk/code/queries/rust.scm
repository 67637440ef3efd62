; Symbols of a Rust file, for ctx's code chunker (modelled on tree-sitter-rust's
; queries/tags.scm, but owned by ctx).
;
; Conventions shared by every query in this directory:
; - `@definition.<kind>` marks the node a symbol chunk spans; `<kind>` becomes
;   `Symbol::kind`. `@name` is its name, `@scope` (optional) a qualifier written
;   outside any container (Go receivers, C++ `Foo::bar` definitions), `@doc`
;   (optional) a docstring inside the node, `@super` (optional, repeatable) a
;   type the definition extends or implements, kept by its bare name, or with
;   its last qualifier (`io.Reader`) when the pattern says `(#set! qualified)`
;   (Go, where the qualifier is the package that defines the type).
; - `@declarator` (C, C++) stands for `@name` and `@scope`: the name is the
;   innermost node of a nested declarator (`*(*f)(int)`), and a qualified one
;   (`Foo::bar`) gives its qualifier as the scope. `(#set! scoped <kind>)` makes
;   a definition so qualified of that kind.
; - A match without `@name` only attaches its `@doc` or `@super` captures to
;   the definition node it captures (which another pattern names).
; - `(#set! container)` marks definitions whose captured children get chunks of
;   their own; definitions nested in any other definition stay inside it.
; - `(#set! declaration)` marks definitions that declare what is defined
;   elsewhere (C's `extern int x;`); a callable without a body is one anyway.
; - When two patterns capture the same node, the earlier pattern wins; when two
;   definitions share a name node, the wider one wins (so wrappers such as
;   `export` or decorators join the symbol).
; - Only members that deserve a chunk are captured inside containers: methods
;   and nested containers. Fields, associated types and required-method
;   signatures stay in the container's own chunk; `@declared.<kind>` names
;   such a member's node, with `@declared_name` (or `@declared_declarator`,
;   C and C++) for its name, in a match that also captures its container's
;   `@definition.<kind>` node, so `Container::member` finds its lines.

(impl_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method))

(function_item name: (identifier) @name) @definition.function

((impl_item type: (type_identifier) @name) @definition.impl (#set! container))
((impl_item type: (generic_type type: (type_identifier) @name)) @definition.impl (#set! container))
((impl_item type: (generic_type type: (scoped_type_identifier name: (type_identifier) @name))) @definition.impl (#set! container))
((impl_item type: (scoped_type_identifier name: (type_identifier) @name)) @definition.impl (#set! container))
; `impl Trait for &'a mut P` is named like `impl Trait for P`: the eval rule's
; and `ctx symbol`'s `P::method`, not a name nobody can type.
((impl_item type: (reference_type type: (type_identifier) @name)) @definition.impl (#set! container))
((impl_item type: (reference_type type: (generic_type type: (type_identifier) @name))) @definition.impl (#set! container))
((impl_item type: (reference_type type: (scoped_type_identifier name: (type_identifier) @name))) @definition.impl (#set! container))
((impl_item type: (_) @name) @definition.impl (#set! container))

((trait_item name: (type_identifier) @name) @definition.trait (#set! container))

((mod_item name: (identifier) @name body: (declaration_list)) @definition.module (#set! container))

(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(union_item name: (type_identifier) @name) @definition.union
(macro_definition name: (identifier) @name) @definition.macro

(source_file (type_item name: (type_identifier) @name) @definition.type)
(source_file (const_item name: (identifier) @name) @definition.const)
(source_file (static_item name: (identifier) @name) @definition.static)
(mod_item body: (declaration_list (type_item name: (type_identifier) @name) @definition.type))
(mod_item body: (declaration_list (const_item name: (identifier) @name) @definition.const))
(mod_item body: (declaration_list (static_item name: (identifier) @name) @definition.static))

; An `extern` block declares functions and statics defined elsewhere, in the
; module around it (`abs`, not `extern "C"::abs`): symbols of their own, the
; block's `extern "C" {` and `}` text between them.
(foreign_mod_item body: (declaration_list
  (function_signature_item name: (identifier) @name) @definition.function))
((foreign_mod_item body: (declaration_list
  (static_item name: (identifier) @name) @definition.static))
  (#set! declaration))

; What an impl block implements, and a trait's supertraits.
(impl_item trait: (_) @super) @definition.impl
(trait_item bounds: (trait_bounds (_) @super)) @definition.trait

; Members declared in their container's chunk.
(trait_item body: (declaration_list [
  (function_signature_item name: (identifier) @declared_name) @declared.method
  (associated_type name: (type_identifier) @declared_name) @declared.type
  (const_item name: (identifier) @declared_name) @declared.const
]))
(impl_item body: (declaration_list [
  (const_item name: (identifier) @declared_name) @declared.const
  (type_item name: (type_identifier) @declared_name) @declared.type
]))
([(struct_item body: (field_declaration_list
    (field_declaration name: (field_identifier) @declared_name) @declared.field))
  (union_item body: (field_declaration_list
    (field_declaration name: (field_identifier) @declared_name) @declared.field))])
(enum_item body: (enum_variant_list
  (enum_variant name: (identifier) @declared_name) @declared.variant))
