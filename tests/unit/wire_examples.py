"""Example bodies from the spec and the public facts, used to prove the models parse and round-trip."""

TOKEN_RESPONSE = {
    "access_token": "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl",
    "expires_in": 300,
    "refresh_expires_in": 0,
    "token_type": "Bearer",
    "not-before-policy": 0,
    "scope": "openid checkout.charge checkout-read",
    "acquirer-terminal-id": "1234",
    "seller-acquirer-id": "5678",
    "core-seller-id": "42",
    "merchant-document": "30155515000121",
    "authorization_details": [
        {"type": "account", "account_id": "acc-1", "fingerprint": "fp-1", "display_name": "Loja 1"}
    ],
}

TOKEN_RESPONSE_MINIMAL = {
    "access_token": "aaa.bbb.ccc",
    "expires_in": 300,
    "token_type": "Bearer",
    "scope": "checkout",
}

CHARGE_REQUEST = {
    "paymentSource": "GATEWAY",
    "smartCheckoutId": "5b1c1f0e-3f5c-4c9a-9d0e-2f6f1e7d9a10",
    "merchantChargeId": "7b0f7c1e-8f2a-4d9a-b0a5-1a2b3c4d5e6f",
    "lateCapture": False,
    "customer": {
        "name": "Joao da Silva",
        "email": "joao@example.com",
        "documentType": "CPF",
        "document": "65844359038",
        "phone": {"countryCode": "55", "areaCode": "11", "number": "999999999", "type": "MOBILE"},
    },
    "deviceInformation": {"ip": "127.0.0.1", "id": "Mozilla/5.0", "sessionId": "s-1"},
    "transactions": [
        {
            "paymentType": "CREDIT",
            "amount": 1500,
            "softDescriptor": "LOJA TESTE",
            "transactionId": "order-1",
            "entryMode": "CREDENTIAL_ON_FILE",
            "issuerTransactionId": "iss-1",
            "credit": {
                "temporatyCardToken": "card_t/AIChh82EgN440hTW8vQqHcPC82EwBW",
                "installmentNumber": 1,
                "installmentType": "NONE",
                "billingAddress": {
                    "street": "Avenida Paulista",
                    "number": "1000",
                    "neighborhood": "Bela Vista",
                    "city": "Sao Paulo",
                    "state": "SP",
                    "country": "BR",
                    "zipCode": "01310100",
                    "complement": "Sala 1",
                },
            },
        }
    ],
}

CHARGE_REPLY = {
    "merchantChargeId": "7b0f7c1e-8f2a-4d9a-b0a5-1a2b3c4d5e6f",
    "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
    "chargeStatus": "PAID",
    "amount": 1500,
    "originalAmount": 1500,
    "refundedAmount": 0,
    "transactions": [
        {
            "paymentType": "CREDIT",
            "amount": 1500,
            "originalAmount": 1500,
            "refundedAmount": 0,
            "transactionStatus": "PAID",
            "createdAt": "2022-05-01T16:00:00-03:00",
            "updatedAt": "2022-05-01T16:00:01-03:00",
            "transactionId": "order-1",
            "softDescriptor": "LOJA TESTE",
            "errorMessage": "APROVADA",
            "mac": "abc",
            "credit": {
                "nsu": "123456",
                "cardNumber": "411111******1111",
                "authorizationCode": "A1B2C3",
                "authorizationResponseCode": "00",
                "reasonCode": "00",
                "reasonMessage": "APROVADA",
                "brand": "VISA",
                "cardholderName": "JOAO DA SILVA",
                "cardholderDocument": "658********",
                "expirationMonth": 2,
                "expirationYear": 2030,
                "installmentNumber": 0,
                "installmentType": "NONE",
                "issuerTransactionId": "iss-1",
            },
            "pix": None,
            "wallet": None,
        }
    ],
}

WEBHOOK_FLAT_CREDIT = {
    "type": "PAYMENT",
    "id": "0f8fad5b-d9cb-469f-a165-70867728950e",
    "merchantChargeId": "7b0f7c1e-8f2a-4d9a-b0a5-1a2b3c4d5e6f",
    "status": "PAID",
    "amount": 1500,
    "originalAmount": 1500,
    "refundedAmount": 0,
    "merchantCode": "12345",
    "merchantDocument": "30155515000121",
    "smartCheckoutId": None,
    "paymentSource": "GATEWAY",
    "lateCapture": False,
    "customer": {
        "document": "658*****038",
        "documentType": "CPF",
        "email": "jo***@example.com",
        "name": "Jo** da S****",
    },
    "transactions": [
        {
            "transactionId": "t-denied",
            "paymentType": "CREDIT",
            "status": "DENIED",
            "amount": 1500,
            "originalAmount": 1500,
            "refundedAmount": 0,
            "numberOfInstallments": 1,
            "softDescriptor": "LOJA TESTE",
            "createdAt": "2024-07-01T19:00:00.123456789",
            "updatedAt": "2024-07-01T19:00:01.123456789",
            "credit": {
                "cardholderName": "JO** DA S****",
                "cardholderDocument": "658*****038",
                "brand": "MASTERCARD",
                "nsu": "000123",
                "authorizationCode": None,
                "authorizationResponseCode": None,
                "acquirerName": "ACQ",
                "installmentType": "NONE",
            },
            "wallet": None,
        },
        {
            "transactionId": "t-paid",
            "paymentType": "CREDIT",
            "status": "CAPTURED",
            "amount": 1500,
            "originalAmount": 1500,
            "refundedAmount": 0,
            "numberOfInstallments": 1,
            "softDescriptor": "LOJA TESTE",
            "createdAt": "2024-07-01T19:00:02.123456789",
            "updatedAt": "2024-07-01T19:00:03.123456789",
            "credit": {
                "cardholderName": "JO** DA S****",
                "cardholderDocument": "658*****038",
                "brand": "VISA",
                "nsu": "000124",
                "authorizationCode": "A1B2C3",
                "authorizationResponseCode": "00",
                "acquirerName": "ACQ",
                "installmentType": "NONE",
            },
            "wallet": None,
        },
    ],
}

WEBHOOK_ENVELOPE_WALLET = {
    "type": "PAYMENT",
    "eventDate": "2024-07-01T16:00:00-03:00",
    "merchantDocument": "30155515000121",
    "id": "9b2e8c1a-0d7f-4e6a-8c3b-5f4e3d2c1b0a",
    "merchantCode": "12345",
    "data": {
        "status": "AUTHORIZED",
        "amount": 2000,
        "originalAmount": 2000,
        "refundedAmount": 0,
        "customer": {
            "document": "658*****038",
            "documentType": "CPF",
            "email": "jo***@example.com",
            "name": "Jo** da S****",
        },
        "merchantChargeId": "c0ffee00-1234-4abc-9def-0123456789ab",
        "smartCheckoutId": None,
        "paymentSource": "GATEWAY",
        "lateCapture": False,
        "transactions": [
            {
                "paymentType": "WALLET",
                "transactionId": "w-1",
                "status": "CAPTURED",
                "amount": 2000,
                "createdAt": "2024-07-01T16:00:00-03:00",
                "updatedAt": "2024-07-01T16:00:00-03:00",
                "wallet": {
                    "expiresAt": "2024-07-01T16:10:00-03:00",
                    "qrCode": "00020101021226...",
                    "qrCodeBase64": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAHnOcQAAAAABJRU5ErkJggg==",
                },
                "credit": None,
            }
        ],
    },
}

WEBHOOK_3DS = {
    "type": "THREE_DS_CHALLENGE",
    "eventDate": "2025-04-16T11:30:04.157929932",
    "merchantDocument": "30155515000121",
    "id": "1d2c3b4a-5e6f-4a7b-8c9d-0e1f2a3b4c5d",
    "merchantCode": "12345",
    "data": {
        "status": "Approved",
        "paresStatus": "Y",
        "eciRaw": "05",
        "merchantChargeId": "7b0f7c1e-8f2a-4d9a-b0a5-1a2b3c4d5e6f",
        "chargeId": "0f8fad5b-d9cb-469f-a165-70867728950e",
    },
}

SDK_ERROR_CVV = {
    "errors": [{"errorCode": 1, "message": "Propriedade 'Cvv' está ausente.", "field": "Cvv"}]
}
SDK_ERROR_BIN = {
    "errors": [
        {"errorCode": 1, "message": "Propriedade 'CardBin' está ausente.", "field": "CardBin"}
    ]
}
SDK_ERROR_NETWORK = {"errors": {"message": "Network Error"}}

API_ERROR = {
    "message": "Invalid request",
    "errors": [{"field": "customer.document", "message": "invalid document", "code": 400}],
}
OAUTH_ERROR = {"error": "invalid_client", "error_description": "Invalid client credentials"}
